/**
 * The OpenAPI 3.1 document of this service, generated from the route definitions of the JSON API
 * (`routes/`, whose zod schemas are the ones the routes validate with) and the other routes'
 * descriptions in `paths/`. Served at `/openapi.json`.
 */
import { OpenApiGeneratorV31, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodTypeAny } from 'zod';
import { ERROR_CATALOGUE, failSchema, type ErrorId } from '@kit/shared';
import { json, openApiPath, type Body, type RouteDoc } from './describe';
import { API_ROUTES } from '../routes';
import { routeDoc, type AnyRoute } from '../routes/route';
import { frontendRoutes } from './paths/frontends';
import { consoleRoutes } from './paths/console';
import { operationRoutes } from './paths/operations';
import { ZH_INFO, ZH_OPERATIONS, ZH_SECURITY, ZH_TAGS, zhSection } from './zh-cn';
import type { DevPlugin } from '../plugins/dev-plugin';
import type { ProviderModule } from '../payments/providers/provider';
import { PROVIDERS } from '../payments/providers/registry';

/**
 * Every route the service itself describes: the JSON API's from their definitions (`routes/`), the
 * others from the descriptions in `paths/` (operations, channel notifications, front-end routers).
 * A development plug-in describes its own (`DocumentOptions.dev`).
 */
export const ROUTE_DOCS: readonly RouteDoc[] = [...API_ROUTES.map(routeDoc), ...otherDocs()];

/** The routes described in `paths/` (operations, the notifications of these providers, front-end routers). */
function otherDocs(providers?: readonly ProviderModule[]): RouteDoc[] {
  return [...operationRoutes(providers), ...frontendRoutes, ...consoleRoutes];
}

export interface DocumentOptions {
  /** The routes a development plug-in serves, with their tag (`plugins/dev-plugin.ts`); none in production. */
  dev?: DevPlugin['openApi'];
  /** The JSON API the service serves (`apiRoutes(services.wallets)`: its wallets' ways); the kit's own (`API_ROUTES`) by default. */
  routes?: readonly AnyRoute[];
  /** The providers the service was given (`services.registered`), whose realms take notifications; the registry's by default. */
  providers?: readonly ProviderModule[];
  /** Public base URL of the service, for `servers` (e.g. `http://127.0.0.1:8080`). */
  serverUrl?: string;
  /** The prose's language (`zh-cn.ts`); English by default. */
  lang?: 'en' | 'zh-CN';
}

/** The id of an operation, as the document names it. */
export const operationIdOf = (doc: Pick<RouteDoc, 'method' | 'path'>) =>
  `${doc.method}${openApiPath(doc.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;

/** The routes the service serves with these options. */
export function servedRouteDocs(opts: Pick<DocumentOptions, 'dev' | 'routes' | 'providers'>): RouteDoc[] {
  const kits = (!opts.routes || opts.routes === API_ROUTES) && (!opts.providers || opts.providers === PROVIDERS);
  const own = kits ? ROUTE_DOCS : [...(opts.routes ?? API_ROUTES).map(routeDoc), ...otherDocs(opts.providers)];
  return [...own, ...(opts.dev?.routes ?? [])];
}

/** What a signed endpoint may answer when the signature check fails (`http/signature.ts`); docs/api.md folds them into one entry. */
export const SIGNATURE_ERRORS: readonly ErrorId[] = [
  'signature_missing',
  'signature_malformed',
  'timestamp_invalid',
  'timestamp_out_of_window',
  'signature_mismatch',
  'signature_replayed',
];

const SIGNING = `Signed requests carry three query fields: \`_appid\` (the app id), \`_t\` (Unix time in milliseconds, within ±300 s of the server clock) and \`_s\`.
\`_s\` is the lower-case hex HMAC-SHA256, keyed with the AppSecret's UTF-8 bytes, of four lines joined by \\n:
the method in upper case; the path relative to the service's base URL as sent; the canonical query (every query field except \`_s\`,
key and value percent-encoded per RFC 3986, sorted by key then value, joined as k=v with &); the lower-case hex SHA-256 of the raw body
bytes (of the empty string without a body). A state-changing request is accepted once: a retry re-signs with a new \`_t\`.
The typed client of \`@kit/shared\` (\`KitClient\`) signs every call.`;

const example = (value: unknown) => (value === undefined ? {} : { example: value });

const bodyOf = (b: ZodTypeAny | Body): Body => ('contentType' in b && 'schema' in b ? (b as Body) : json(b as ZodTypeAny));

function errorResponses(doc: RouteDoc): RouteConfig['responses'] {
  const ids = new Set<ErrorId>([...(doc.auth === 'signed' ? SIGNATURE_ERRORS : []), ...(doc.errors ?? [])]);
  if (doc.body || doc.query || doc.params) ids.add('invalid_request');
  const byStatus = new Map<number, ErrorId[]>();
  for (const id of ids) {
    const { http } = ERROR_CATALOGUE[id];
    byStatus.set(http, [...(byStatus.get(http) ?? []), id]);
  }
  const out: RouteConfig['responses'] = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const [first] = list;
    out[status] = {
      description: list.map((id) => `\`${id}\` (${ERROR_CATALOGUE[id].code}): ${ERROR_CATALOGUE[id].msg}`).join('; '),
      content: {
        'application/json': {
          schema: failSchema,
          example: {
            version: doc.path.startsWith('/submerchant-pay') || doc.path.startsWith('/merchant') ? 1 : '1',
            status: 'fail',
            error: first,
            code: ERROR_CATALOGUE[first].code,
            msg: ERROR_CATALOGUE[first].msg,
            traceId: '5f1c9a2e000042',
          },
        },
      },
    };
  }
  return out;
}

function otherAnswers(answers: NonNullable<RouteDoc['answers']>): RouteConfig['responses'] {
  return Object.fromEntries(
    Object.entries(answers).map(([status, a]) => [
      status,
      { description: a.description, ...(a.content ? { content: Object.fromEntries(a.content.map((b) => [b.contentType, { schema: b.schema }])) } : {}) },
    ]),
  );
}

function security(auth: RouteDoc['auth']): RouteConfig['security'] {
  if (auth === 'signed') return [{ appId: [], timestamp: [], signature: [] }];
  if (auth === 'posCookie') return [{ posLogin: [] }];
  if (auth === 'consoleCookie') return [{ consoleLogin: [] }];
  if (auth === 'metricsToken') return [{ metricsToken: [] }, {}];
  return [];
}

export function buildOpenApiDocument(opts: DocumentOptions) {
  const zh = opts.lang === 'zh-CN';
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'appId', { type: 'apiKey', in: 'query', name: '_appid', description: SIGNING });
  registry.registerComponent('securitySchemes', 'timestamp', {
    type: 'apiKey',
    in: 'query',
    name: '_t',
    description: 'Unix time in milliseconds (13 digits); see appId.',
  });
  registry.registerComponent('securitySchemes', 'signature', {
    type: 'apiKey',
    in: 'query',
    name: '_s',
    description: 'HMAC-SHA256 signature, 64 lower-case hex characters; see appId.',
  });
  registry.registerComponent('securitySchemes', 'posLogin', {
    type: 'apiKey',
    in: 'cookie',
    name: 'pos_login',
    description: 'Set by POST /pos/api/login (httpOnly, SameSite=Strict).',
  });
  registry.registerComponent('securitySchemes', 'consoleLogin', {
    type: 'apiKey',
    in: 'cookie',
    name: 'console_login',
    description: 'Set by POST /console/api/login (httpOnly, SameSite=Strict).',
  });
  registry.registerComponent('securitySchemes', 'metricsToken', { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when it is set.' });

  for (const doc of servedRouteDocs(opts)) {
    const answer = bodyOf(doc.answer);
    const bodies = doc.body ? (Array.isArray(doc.body) ? (doc.body as readonly Body[]) : [bodyOf(doc.body as ZodTypeAny | Body)]) : [];
    const operationId = operationIdOf(doc);
    // In Chinese, an operation's own text when it has one; otherwise its English, whole.
    const prose = zh && (doc.zh ?? ZH_OPERATIONS[operationId]);
    const section = doc.section ? (prose ? zhSection(doc.section) : `Specification section ${doc.section}. `) : '';
    const summary = prose ? prose.summary : doc.summary;
    const description = prose ? (prose.description ?? '') : (doc.description ?? '');
    registry.registerPath({
      method: doc.method,
      path: openApiPath(doc.path),
      operationId,
      tags: [doc.tag],
      summary: doc.section ? `${doc.section} ${summary}` : summary,
      description: `${section}${description}`.trim() || undefined,
      security: security(doc.auth),
      request: {
        params: doc.params,
        query: doc.query,
        headers: doc.headers,
        body: bodies.length
          ? { required: true, content: Object.fromEntries(bodies.map((b) => [b.contentType, { schema: b.schema, ...example(doc.example?.body) }])) }
          : undefined,
      },
      responses: {
        200: { description: doc.answerDescription ?? 'Success', content: { [answer.contentType]: { schema: answer.schema, ...example(doc.example?.answer) } } },
        ...(doc.answers ? otherAnswers(doc.answers) : errorResponses(doc)),
      },
    });
  }

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Merchant kit API',
      version: '1',
      description:
        'Payments, trusted points and chain records for merchants selling through a social app. Every answer carries `version` ' +
        '(the number 1 for payments and merchants, the string "1" for donations, points and chain uploads) and `status`; check `status` first. ' +
        'Failures answer `{version, status: "fail", error, code, msg, traceId}`.',
    },
    servers: opts.serverUrl ? [{ url: opts.serverUrl }] : undefined,
    tags: [
      { name: 'Payments', description: 'Prepay orders, payment arguments and refunds (specification 4.1–4.6)' },
      { name: 'Merchants', description: 'Merchants, logins and payment parameters (4.7, 4.16, 4.17)' },
      { name: 'Callbacks', description: 'Every payment-result callback (section 6) with its attempts; resend one, recover a window' },
      { name: 'Reconciliation', description: "Daily statement reconciliation with the channels' trade bills (docs/reconciliation.md)" },
      { name: 'Donations', description: 'Donation projects and donations on the chain (4.9–4.11)' },
      { name: 'Trusted points', description: 'Balances and deduction codes (4.12, 4.13)' },
      { name: 'Chain', description: 'Generic chain upload and lookup (4.14, 4.15) and inclusion proofs' },
      { name: 'Operations', description: 'Health, metrics and this document' },
      { name: 'Channel notifications', description: 'Where the payment channels notify the service' },
      { name: 'POS display router', description: 'The API behind the POS display at /pos/' },
      { name: 'Console router', description: 'The API behind the merchant console at /console/' },
      { name: 'Mini-program router', description: 'The API behind the payer mini-program at /mp/' },
      { name: 'Pages', description: 'Front-end pages' },
      ...(opts.dev ? [{ name: opts.dev.tag.name, description: opts.dev.tag.description }] : []),
    ],
  });
  return zh ? inChinese(document, opts.dev ? { [opts.dev.tag.name]: opts.dev.tag.zh } : {}) : document;
}

/** The document's own prose in Chinese (`zh-cn.ts`): its introduction, groups and signing schemes. */
function inChinese<D extends ReturnType<OpenApiGeneratorV31['generateDocument']>>(document: D, devTags: Record<string, string>): D {
  document.info.description = ZH_INFO;
  document.info.title = '商户工具包 API';
  for (const tag of document.tags ?? []) tag.description = ZH_TAGS[tag.name] ?? devTags[tag.name] ?? tag.description;
  const schemes = document.components?.securitySchemes ?? {};
  for (const [name, scheme] of Object.entries(schemes)) if (ZH_SECURITY[name] && 'description' in scheme) scheme.description = ZH_SECURITY[name];
  return document;
}
