/**
 * `GET /openapi.json` describes exactly the routes the service answers: the test walks the Express
 * application's router (routes and mounted routers) and compares both ways, and a standard
 * validator checks the document against the OpenAPI 3.1 schema. `/docs/` renders it from files
 * this service serves itself.
 */
import type { Express } from 'express';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestKit, type TestKit } from '../support/kit';
import { backends } from '../support/backends';
import type { ZodTypeAny } from 'zod';
import { openApiPath } from '../../src/openapi/describe';
import { ROUTE_DOCS } from '../../src/openapi/document';
import { sandboxPlugin } from '@kit/sandbox';
import { API_ROUTES } from '../../src/routes';

const sqlite = backends()[0];

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean>; stack?: Array<{ handle: { name: string } }> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

/** `METHOD /path` of every route the application answers, mounted routers included (HEAD goes with GET). */
function servedRoutes(app: Express): Set<string> {
  const out = new Set<string>();
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      // The 405 answers of known paths asked with another method are not endpoints.
      if (layer.route?.stack?.some((l) => l.handle.name === 'answerMethodNotAllowed')) continue;
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const p of paths) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all' && method !== 'head') out.add(`${method.toUpperCase()} ${openApiPath(prefix + p)}`);
          }
        }
      } else if (layer.handle?.stack && typeof layer.rawPath === 'string') {
        walk(layer.handle.stack, prefix + (layer.rawPath === '/' ? '' : layer.rawPath));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out;
}

function describedRoutes(doc: { paths: Record<string, Record<string, unknown>> }): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item))
      if (['get', 'post', 'put', 'delete', 'patch', 'options'].includes(method)) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

/** Runs the validator (an ES module, which Jest's CommonJS runtime cannot load) in a Node process of its own. */
function validateOpenApi(doc: unknown): { valid: boolean; errors?: unknown } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kit-openapi-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const script = `import { Validator } from '@seriousme/openapi-schema-validator';
const r = await new Validator().validate(${JSON.stringify(file)});
console.log(JSON.stringify({ valid: r.valid, errors: r.errors }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: path.resolve(__dirname, '../../..'), encoding: 'utf8' });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return JSON.parse(out);
}

/** Express routing is not strict: `/merchant` and `/merchant/` are the same route (the document keeps the specification's spelling). */
const sameRoute = (r: string) => r.replace(/(.)\/$/, '$1');
const missing = (from: Set<string>, inSet: Set<string>) => {
  const have = new Set([...inSet].map(sameRoute));
  return [...from].filter((r) => !have.has(sameRoute(r))).sort();
};

describe.each([
  ['sandbox on', {}],
  ['sandbox off', { SANDBOX_ENABLED: '0' }],
])('OpenAPI document (%s)', (_name, env) => {
  let kit: TestKit;
  let doc: { openapi: string; paths: Record<string, Record<string, unknown>> };
  beforeAll(async () => {
    kit = await startTestKit(sqlite, { ...sqlite.env(), ...env });
    const res = await fetch(`${kit.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = await res.json();
  });
  afterAll(async () => {
    await kit.close();
  });

  it('is valid OpenAPI 3.1', () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = validateOpenApi(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is valid OpenAPI 3.1 in Chinese too (?lang=zh-CN), describing the same operations', async () => {
    const zh = (await (await fetch(`${kit.url}/openapi.json?lang=zh-CN`)).json()) as typeof doc;
    const result = validateOpenApi(zh);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(zh.paths)).toEqual(Object.keys(doc.paths));
    expect((zh.paths['/submerchant-pay/'].post as { summary: string }).summary).toBe('4.1 创建预支付订单');
  });

  it('describes every route the service answers, and only those', () => {
    // The Express application among the server's listeners (the runtime also tracks calls in flight).
    const app = kit.runtime.server.listeners('request').find((l) => 'router' in l) as Express;
    const served = servedRoutes(app);
    const described = describedRoutes(doc);
    expect(served.size).toBeGreaterThan(30);
    // Named one by one, so a failure says which route to describe (server/src/routes/, or server/src/openapi/paths/ for the others) or which description to remove.
    expect({ servedButNotDescribed: missing(served, described), describedButNotServed: missing(described, served) }).toEqual({
      servedButNotDescribed: [],
      describedButNotServed: [],
    });
  });

  it('cites the specification section of each endpoint it implements', () => {
    const op = (method: string, path: string) => doc.paths[path][method] as { summary: string; description?: string };
    expect(op('post', '/submerchant-pay/').summary).toMatch(/^4\.1 /);
    expect(op('get', '/submerchant-pay/prePay/{prepayId}').summary).toMatch(/^4\.2 /);
    expect(op('get', '/fungible-token/chainPay').description).toContain('Specification section 4.13');
  });

  it('describes the channel notifications in both protocols: v3 JSON with its Wechatpay-* headers and v2 XML in, 204 / {code: "FAIL"} and XML out', () => {
    for (const kind of ['pay', 'refund']) {
      const op = doc.paths[`/pay-notify/{realm}/${kind}`].post as {
        parameters: Array<{ name: string; in: string }>;
        requestBody: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
        responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }>;
      };
      expect(op.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual([
        'Wechatpay-Timestamp',
        'Wechatpay-Nonce',
        'Wechatpay-Signature',
        'Wechatpay-Serial',
      ]);
      expect(Object.keys(op.requestBody.content).sort()).toEqual(['application/json', 'application/xml']);
      expect(Object.keys(op.requestBody.content['application/json'].schema.properties ?? {})).toEqual(expect.arrayContaining(['id', 'event_type', 'resource']));
      expect(Object.keys(op.responses).sort()).toEqual(['200', '204', '400', '500']);
      expect(Object.keys(op.responses['200'].content ?? {})).toEqual(['application/xml']);
      expect(op.responses['204'].content).toBeUndefined();
      for (const status of ['400', '500']) {
        const content = op.responses[status].content ?? {};
        expect(Object.keys(content).sort()).toEqual(['application/json', 'application/xml']);
        expect(Object.keys(content['application/json'].schema.properties ?? {})).toEqual(['code', 'message']);
      }
    }
  });
});

describe('API reference page', () => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(sqlite, sqlite.env());
  });
  afterAll(async () => {
    await kit.close();
  });

  it('is served at /docs/ from this service alone', async () => {
    const redirect = await fetch(`${kit.url}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/docs/');
    const page = await fetch(`${kit.url}/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // Nothing from another host: every script and style is a relative URL of this service.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])) {
      const res = await fetch(new URL(asset, `${kit.url}/docs/`));
      expect([asset, res.status]).toEqual([asset, 200]);
    }
    const init = await (await fetch(`${kit.url}/docs/init.js`)).text();
    expect(init).toContain("'../openapi.json'");
    expect(init).toContain('validatorUrl: null');
    // "Try it" is its TypeScript bundled for the browser with the shared signing rules; the source itself is not served.
    const tryIt = await fetch(`${kit.url}/docs/try-it.js`);
    expect([tryIt.status, tryIt.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(await tryIt.text()).toContain('KitTryIt');
    expect((await fetch(`${kit.url}/docs/try-it.ts`)).status).toBe(404);
    // The UI package's own demo page (which loads an example document from elsewhere) is not served.
    expect((await fetch(`${kit.url}/docs/swagger-initializer.js`)).status).toBe(404);
  });
});

describe('examples in the document', () => {
  const schemaOf = (b: unknown): ZodTypeAny =>
    (b as { schema?: ZodTypeAny }).schema && (b as { contentType?: string }).contentType ? (b as { schema: ZodTypeAny }).schema : (b as ZodTypeAny);
  const withExamples = [...ROUTE_DOCS, ...sandboxPlugin.openApi.routes]
    .filter((r) => r.example)
    .map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const);

  it('exist for the main endpoints of the specification', () => {
    expect(withExamples.length).toBeGreaterThanOrEqual(12);
  });

  it.each(withExamples)('%s: its examples pass the schemas the document shows', (_name, route) => {
    if (route.example?.body !== undefined) expect(schemaOf(route.body).safeParse(route.example.body).error?.issues ?? []).toEqual([]);
    if (route.example?.answer !== undefined) expect(schemaOf(route.answer).safeParse(route.example.answer).error?.issues ?? []).toEqual([]);
  });

  it.each(API_ROUTES.filter((r) => r.example?.body !== undefined).map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    '%s: its example body passes the check the route makes',
    (_name, route) => {
      expect(route.body?.safeParse(route.example?.body).error?.issues ?? []).toEqual([]);
    },
  );
});
