/**
 * The generated part of docs/api.md, written from the OpenAPI document the service serves at
 * `GET /openapi.json` (whose examples a test checks against the route schemas) and from the error
 * catalogue: one truth for endpoints, examples and errors.
 */
import { ERROR_CATALOGUE } from '@kit/shared';
import { buildOpenApiDocument } from '../../server/src/openapi/document';
import { openApiPath } from '../../server/src/openapi/describe';
import { ROUTE_DOCS as SERVICE_ROUTE_DOCS, SIGNATURE_ERRORS } from '../../server/src/openapi/document';
import { sandboxPlugin } from '@kit/sandbox';
import { code, jsonBlock, table } from './markdown';

/** The reference describes the development service: the service's routes and the sandbox's (its plug-in, `@kit/sandbox`). */
const ROUTE_DOCS = [...SERVICE_ROUTE_DOCS, ...sandboxPlugin.openApi.routes];

/* The parts of OpenAPI 3.1 / JSON Schema this page reads. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  description?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  additionalProperties?: boolean | Schema;
}
interface Content {
  schema?: Schema;
  example?: unknown;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Operation {
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Content> };
  responses: Record<string, { description?: string; content?: Record<string, Content> }>;
}

const AUTH_TEXT = {
  signed: 'signed by an app (`_appid`, `_t`, `_s`: [signing](signing.md))',
  posCookie: 'the POS login cookie `pos_login`',
  consoleCookie: 'the console login cookie `console_login`',
  metricsToken: '`Authorization: Bearer <METRICS_TOKEN>` when `METRICS_TOKEN` is set',
  none: 'none',
} as const;

/** A short type: `string`, `"success"`, `integer ≥ 0`, `array of {a, b}`, `A or B`. */
export function typeText(s: Schema | undefined, depth = 0): string {
  if (!s) return 'any';
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.map((a) => typeText(a, depth)).join(' or ');
  if (s.allOf) return s.allOf.map((a) => typeText(a, depth)).join(' and ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' or ');
  const type = Array.isArray(s.type) ? s.type.join(' or ') : s.type;
  if (type === 'array') {
    const n = s.minItems !== undefined || s.maxItems !== undefined ? ` (${s.minItems ?? 0}–${s.maxItems ?? '…'})` : '';
    return `array${n} of ${typeText(s.items, depth)}`;
  }
  if (type === 'object' || s.properties) {
    const keys = Object.keys(s.properties ?? {});
    if (!keys.length) return 'object';
    if (depth >= 1) return `{${keys.map((k) => (s.required?.includes(k) ? k : `${k}?`)).join(', ')}}`;
    return `{${keys.map((k) => `${s.required?.includes(k) ? k : `${k}?`}: ${typeText(s.properties![k], depth + 1)}`).join(', ')}}`;
  }
  const limits: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) limits.push(`${s.minLength ?? 0}–${s.maxLength ?? '…'} chars`);
  if (s.minimum !== undefined) limits.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) limits.push(`≤ ${s.maximum}`);
  return `${type ?? 'any'}${limits.length ? ` (${limits.join(', ')})` : ''}`;
}

function fieldNotes(s: Schema): string {
  const notes = [s.description ?? ''];
  if (s.pattern) notes.push(`pattern ${code(s.pattern)}`);
  if (s.default !== undefined) notes.push(`default ${code(JSON.stringify(s.default))}`);
  return notes.filter(Boolean).join('; ');
}

function fieldsTable(schema: Schema): string {
  const props = schema.properties ?? {};
  const rows = Object.entries(props).map(([name, s]) => [code(name), schema.required?.includes(name) ? 'yes' : 'no', typeText(s, 1), fieldNotes(s)]);
  return table(['field', 'required', 'type', 'notes'], rows);
}

/** A body or an answer: its example, or its fields when it has none. */
function payload(title: string, contentType: string, c: Content): string[] {
  const out = [`${title} (${code(contentType)}):`, ''];
  if (c.example !== undefined) out.push(jsonBlock(c.example));
  else if (c.schema?.properties) out.push(fieldsTable(c.schema));
  else if (c.schema?.anyOf || c.schema?.oneOf) out.push(`One of: ${(c.schema.anyOf ?? c.schema.oneOf)!.map((s) => typeText(s)).join('; ')}.`);
  else out.push(c.schema?.description ?? typeText(c.schema));
  return [...out, ''];
}

/** The error ids an OpenAPI error response names, the signature failures folded into one entry. */
function errorList(description: string): string {
  const ids = [...description.matchAll(/`(\w+)` \(E\d+\)/g)].map((m) => m[1]);
  if (!ids.length) return description;
  const folded = SIGNATURE_ERRORS.every((id) => ids.includes(id));
  const rest = ids.filter((id) => !folded || !(SIGNATURE_ERRORS as readonly string[]).includes(id)).map(code);
  return [...(folded ? ['the signature failures (`signature_*`, `timestamp_*`)'] : []), ...rest].join(', ');
}

function renderOperation(method: string, path: string, op: Operation): string {
  const route = ROUTE_DOCS.find((r) => r.method === method && openApiPath(r.path) === path);
  if (!route) throw new Error(`no route description for ${method} ${path}`);
  const heading = `${route.section ? `${route.section} ` : ''}${method.toUpperCase()} ${path}`;
  const out = [
    `### ${heading}`,
    '',
    `**${route.summary}.** Auth: ${AUTH_TEXT[route.auth]}.${route.sandboxOnly ? ' Served only when the sandbox is on.' : ''}`,
    '',
  ];
  if (route.description) out.push(route.description, '');
  const params = (op.parameters ?? []).filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header');
  if (params.length) {
    out.push(
      table(
        ['parameter', 'in', 'required', 'type', 'notes'],
        params.map((p) => [code(p.name), p.in, p.required ? 'yes' : 'no', typeText(p.schema, 1), p.description ?? (p.schema ? fieldNotes(p.schema) : '')]),
      ),
      '',
    );
  }
  for (const [type, c] of Object.entries(op.requestBody?.content ?? {})) out.push(...payload('Request body', type, c));
  const ok = op.responses['200'];
  for (const [type, c] of Object.entries(ok?.content ?? {}))
    out.push(...payload(`Answer 200${ok.description && ok.description !== 'Success' ? ` (${ok.description})` : ''}`, type, c));
  // Other successes (a channel's 204) read as answers, not failures.
  for (const [status, r] of Object.entries(op.responses).filter(([st]) => st !== '200' && st.startsWith('2'))) {
    if (!r.content) out.push(`Answer ${status}: ${r.description ?? ''}`, '');
    for (const [type, c] of Object.entries(r.content ?? {})) out.push(...payload(`Answer ${status}${r.description ? ` (${r.description})` : ''}`, type, c));
  }
  const failures = Object.entries(op.responses).filter(([status]) => !status.startsWith('2'));
  if (failures.length)
    out.push(
      table(
        ['HTTP', 'errors'],
        failures.map(([status, r]) => [status, errorList(r.description ?? '')]),
      ),
      '',
    );
  return out.join('\n').trimEnd();
}

export function renderApiReference(): string {
  const doc = buildOpenApiDocument({ dev: sandboxPlugin.openApi }) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    tags: Array<{ name: string; description?: string }>;
  };
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op, tag: (op as { tags?: string[] }).tags?.[0] ?? '' })),
  );

  const bySection = ROUTE_DOCS.filter((r) => r.section)
    .slice()
    .sort((a, b) => a.section!.localeCompare(b.section!, 'en', { numeric: true }))
    .map((r) => [r.section!, code(`${r.method.toUpperCase()} ${r.path}`), r.summary]);

  const parts: string[] = [
    '## Endpoints by specification section',
    '',
    table(['section', 'endpoint', 'what it does'], bySection),
    '',
    '## Error catalogue',
    '',
    'Every failure answers `{version, status: "fail", error, code, msg, traceId}` with one of these `error` ids (`shared/src/errors.ts`); `traceId` is the request id in the service\'s logs.',
    '',
    table(
      ['error', 'code', 'HTTP', 'meaning'],
      Object.entries(ERROR_CATALOGUE).map(([id, e]) => [code(id), code(e.code), String(e.http), e.msg]),
    ),
    '',
    '## Endpoints',
    '',
    'Request and answer examples are the ones of the OpenAPI document (checked against the route schemas by `server/test/api/openapi.test.ts`); an endpoint without an example lists its fields.',
  ];
  for (const tag of doc.tags) {
    const inTag = ops.filter((o) => o.tag === tag.name);
    if (!inTag.length) continue;
    parts.push('', `## ${tag.name}`, '', tag.description ? `${tag.description}.` : '');
    for (const o of inTag) parts.push('', renderOperation(o.method, o.path, o.op));
  }
  return parts.join('\n').replace(/\n{3,}/g, '\n\n');
}
