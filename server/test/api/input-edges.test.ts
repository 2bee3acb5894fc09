/**
 * Input that used to reach a rule, a serialiser or the database and come back as 500: bodies nested
 * thousands deep, and NUL (U+0000) in a text field, a lookup id or a query, in the kit's API and in
 * the sandbox's routes and pages (which read them by the service's rules, through the plug-in
 * contract). One rule each, for every JSON body and URL, before any rule runs; 400 on every backend.
 */
import { createPrivateKey } from 'node:crypto';
import { encodeQuery, signRequest } from '@kit/shared';
import { authorization, unixSeconds } from '../../src/payments/providers/social-v3/sign';
import { describeEachBackend } from '../support/backends';
import { createMerchants, sandboxTables, startTestKit, type TestKit } from '../support/kit';
import { devV3Material } from '@kit/sandbox';

/** JSON text of arrays nested `depth` deep (written as text: serialising it would overflow the stack). */
const nested = (depth: number) => `${'['.repeat(depth)}"leaf"${']'.repeat(depth)}`;

describeEachBackend('input edges', (backend) => {
  let kit: TestKit;
  let owner: Awaited<ReturnType<TestKit['newApp']>>;
  let ids: { parentId: string; subId: string; pw: string };
  beforeAll(async () => {
    kit = await startTestKit(backend);
    owner = await kit.newApp();
    ids = await createMerchants(owner.client, owner.appId);
  });
  afterAll(() => kit.close());

  /** A signed call with the body as given, byte for byte. */
  const signedRaw = async (path: string, body: string) => {
    const query = encodeQuery(signRequest({ method: 'POST', path, body }, owner));
    const res = await fetch(`${kit.url}${path}?${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    return { httpStatus: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const order = (extraInfo: string) => `{"subMerchantId":"${ids.subId}","totalAmount":"1.00","extraInfo":${extraInfo}}`;
  const refused = (a: { httpStatus: number; body: Record<string, unknown> }, msg: RegExp) => {
    expect(a.httpStatus).toBe(400);
    expect(a.body).toMatchObject({ status: 'fail', error: 'invalid_request', msg: expect.stringMatching(msg) });
  };

  it('refuses extraInfo nested 5,000 deep with 400 and creates nothing; 64 levels in all are fine', async () => {
    const count = async () => (await kit.runtime.db.db.selectFrom('prepay_orders').select('prepay_id').execute()).length;
    const before = await count();
    refused(await signedRaw('/submerchant-pay/', order(nested(5_000))), /deeper than 64/);
    // The body itself is the first level.
    refused(await signedRaw('/submerchant-pay/', order(nested(64))), /deeper than 64/);
    expect(await count()).toBe(before);
    expect((await signedRaw('/submerchant-pay/', order(nested(63)))).httpStatus).toBe(200);
    // Brackets inside strings are text, not nesting.
    const text = await owner.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: ids.subId, totalAmount: '1.00', extraInfo: '['.repeat(500) } });
    expect(text.httpStatus).toBe(200);
  });

  it('refuses a deep body on an unsigned route and on the front-end routers too', async () => {
    const post = async (path: string, body: string) => {
      const res = await fetch(`${kit.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { httpStatus: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    refused(await post('/merchant/login', `{"userId":"${ids.parentId}","pw":${nested(100)}}`), /deeper than 64/);
    refused(await post('/pos/api/login', `{"userId":"${ids.subId}","pw":${nested(1_000)}}`), /deeper than 64/);
    refused(await post('/mp/api/pay', `{"prepayId":"x","code":${nested(1_000)}}`), /deeper than 64/);
  });

  it('refuses NUL in a text field, in a login id and in a lookup id or query, with 400 on every database', async () => {
    refused(
      await owner.client.call('POST', '/merchant', {
        body: { type: 'merchant', parameters: { displayName: 'Nul\u0000Shop', pw: 'password123', appId: owner.appId } },
      }),
      /NUL/,
    );
    refused(await owner.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: ids.subId, totalAmount: '1.00', orderId: 'A\u0000' } }), /NUL/);
    refused(await owner.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: `${ids.subId}\u0000`, totalAmount: '1.00' } }), /NUL/);
    refused(
      await owner.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: ids.subId, totalAmount: '1.00', extraInfo: { ['k\u0000']: 1 } } }),
      /NUL/,
    );
    refused(await owner.client.call('GET', `/submerchant-pay/prePay/${encodeURIComponent('abc\u0000')}`), /NUL/);
    refused(await owner.client.call('GET', '/submerchant-pay/profitSharing/orders/x', { query: { prepayId: 'a\u0000b' } }), /NUL/);
    const login = await fetch(`${kit.url}/merchant/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: `${ids.parentId}\u0000`, pw: ids.pw }),
    });
    expect(login.status).toBe(400);
    const mp = await fetch(`${kit.url}/mp/api/orders/abc%00def`);
    expect(mp.status).toBe(400);
  });

  it("refuses a body nested 5,000 deep on every JSON route of the sandbox, in each route's own words, and stores nothing", async () => {
    // Every route the sandbox serves is described (openapi.test.ts): those taking JSON, enumerated, so a new one cannot escape.
    const doc = (await (await fetch(`${kit.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => path.startsWith('/sandbox/') && op.requestBody?.content['application/json'])
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x') })),
    );
    const posts = routes.map((r) => `${r.method} ${r.path}`);
    for (const named of ['/sandbox/pay', '/sandbox/login', '/sandbox/renotify', '/sandbox/alipay/pay', '/sandbox/alipay/auth-code', '/sandbox/faults'])
      expect(posts).toContain(`POST ${named}`);
    expect(posts.filter((p) => p.startsWith('POST /sandbox/v3/')).length).toBeGreaterThan(5);

    const codes = async () => (await sandboxTables(kit).selectFrom('sandbox_login_codes').select('code').execute()).length;
    const before = await codes();
    const faults = await (await fetch(`${kit.url}/sandbox/faults`)).text();
    const dev = devV3Material(kit.runtime.config.DATA_DIR).settings;
    const merchant = { mchid: kit.runtime.config.PAY_SP_MCH_ID!, serial: dev.PAY_SP_CERT_SERIAL, privateKey: createPrivateKey(dev.PAY_SP_PRIVATE_KEY) };
    const body = `{"user":${nested(5_000)},"prepayId":"x"}`;
    const answers: Array<[string, number, unknown]> = [];
    for (const { method, path } of routes) {
      // API v3 calls are signed by the service provider's key (the sandbox checks it before reading the body).
      const v3: Record<string, string> = path.startsWith('/sandbox/v3/')
        ? { authorization: authorization(merchant, method, path.slice('/sandbox'.length), body, unixSeconds(kit.clock.now())) }
        : {};
      const res = await fetch(`${kit.url}${path}`, { method, headers: { 'content-type': 'application/json', ...v3 }, body });
      const text = await res.text();
      answers.push([`${method} ${path}`, res.status, text.startsWith('{') ? JSON.parse(text) : text]);
    }
    const deeper = expect.stringMatching(/deeper than 64/);
    const expected = answers.map(([route]): [string, number, unknown] => {
      // The platform's API v3: its own 400.
      if (route.startsWith('POST /sandbox/v3/')) return [route, 400, { code: 'PARAM_ERROR', message: deeper }];
      // The mini-program platform's server API answers its errors with HTTP 200, as the platform does.
      if (/^POST \/sandbox\/(cgi-bin|wxa)\//.test(route)) return [route, 200, { errcode: 47001, errmsg: 'data format error' }];
      // The development receiver stands for a merchant's endpoint: it keeps what arrives, as it came, without reading it as a rule would.
      if (route === 'POST /sandbox/receiver') return [route, 200, 'OK'];
      // The sandbox's own API (payer, faults): 400 in its shape.
      return [route, 400, { status: 'fail', msg: deeper }];
    });
    expect(answers).toEqual(expected);
    expect(await codes()).toBe(before);
    expect(await (await fetch(`${kit.url}/sandbox/faults`)).text()).toBe(faults);
  });

  it("refuses NUL in the sandbox's payer API and pages with 400, and stores nothing", async () => {
    const codes = async () => (await sandboxTables(kit).selectFrom('sandbox_login_codes').select('code').execute()).length;
    const before = await codes();
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${kit.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const get = async (path: string) => {
      const res = await fetch(`${kit.url}${path}`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const sandboxRefused = (a: { status: number; body: Record<string, unknown> }) => {
      expect(a.status).toBe(400);
      expect(a.body).toEqual({ status: 'fail', msg: expect.stringMatching(/NUL/) });
    };
    sandboxRefused(await post('/sandbox/login', { user: 'cashier\u0000one' }));
    // A lone surrogate is refused by the same rule.
    sandboxRefused(await post('/sandbox/login', { user: 'cashier\ud800' }));
    sandboxRefused(await post('/sandbox/pay', { prepayId: 'wx\u0000', openId: 'o' }));
    sandboxRefused(await post('/sandbox/renotify', { prepayId: 'wx\u0000' }));
    const { MP_APPID, MP_SECRET } = kit.runtime.config;
    sandboxRefused(await get(`/sandbox/sns/jscode2session?appid=${MP_APPID}&secret=${MP_SECRET}&grant_type=authorization_code&js_code=a%00b`));
    sandboxRefused(await get('/sandbox/cashier?package=prepay_id=wx%00'));
    sandboxRefused(await post('/sandbox/receiver?_appid=app%00', { prepayId: 'x' }));
    expect(await codes()).toBe(before);
    // The same login without the NUL works.
    const ok = await post('/sandbox/login', { user: 'cashier one' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ code: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });
});
