/**
 * The mini-program code the platform makes, on the POS router (docs/screens.md, docs/operations.md):
 * `GET /pos/api/orders/:prepayId/mini-program-code` through the sandbox's `stable_token` and
 * `getwxacodeunlimit`, with a proxy in front of the sandbox counting (and, where a test says so,
 * answering) the platform's calls.
 */
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { sandboxPost } from '../support/payments';
import { startPlatformProxy, type PlatformProxy } from '../support/platform-proxy';
import { Cashier, callsOf, decodePng, metric, payerLink } from '../support/mini-program';

describeEachBackend('the mini-program code on the POS display', (backend) => {
  let kit: TestKit;
  let proxy: PlatformProxy;
  let cashier: Cashier;
  let other: Cashier;

  beforeAll(async () => {
    proxy = await startPlatformProxy();
    kit = await startTestKit(backend, { MP_API_URL: proxy.url });
    proxy.target = `${kit.url}/sandbox`;
    const app = await kit.newApp();
    const shop = await createMerchants(app.client, app.appId);
    const second = await createMerchants(app.client, app.appId, { parent: 'Parent Two', sub: 'Other Shop' });
    cashier = new Cashier(kit.url);
    await cashier.login(shop.subId, shop.pw);
    other = new Cashier(kit.url);
    await other.login(second.subId, second.pw);
  });
  afterEach(async () => {
    proxy.intercept = () => undefined;
    await sandboxPost(kit.url, '/faults', {});
  });
  afterAll(async () => {
    await kit?.close();
    await proxy?.close();
  });

  it('answers the code the platform drew for sm.pay?prepayid=<id>, once per order, all codes with one access token', async () => {
    const ids = [await cashier.order('1.00'), await cashier.order('2.00'), await cashier.order('3.00')];
    for (const id of ids) {
      const code = await cashier.code(id);
      expect(code.status).toBe(200);
      expect(code.contentType).toBe('image/png');
      // The sandbox's code leads to the payer page with the same scene.
      expect(decodePng(code.image)).toBe(payerLink(kit.url, id));
      // A redraw is served from the database: the same bytes, no call to the platform.
      const again = await cashier.code(id);
      expect(again.image.equals(code.image)).toBe(true);
    }
    const tokens = callsOf(proxy.calls, 'stable_token');
    expect(tokens).toHaveLength(1);
    expect(tokens[0].json).toEqual({
      grant_type: 'client_credential',
      appid: 'wx5andb0xmp000001',
      secret: 'sandbox-mini-program-secret',
      force_refresh: false,
    });
    const codes = callsOf(proxy.calls, 'getwxacodeunlimit');
    expect(codes).toHaveLength(3);
    expect(codes.map((c) => c.json)).toEqual(
      ids.map((id) => ({ scene: `sm.pay?prepayid=${id}`, page: 'pages/pay/index', check_path: true, env_version: 'release', width: 430 })),
    );
    const token = new URL(codes[0].url, 'http://x').searchParams.get('access_token')!;
    expect(codes.every((c) => c.url.includes(`access_token=${encodeURIComponent(token)}`))).toBe(true);
    // Kept sealed, like the other secrets.
    const row = await kit.runtime.db.db.selectFrom('mp_access_tokens').selectAll().executeTakeFirstOrThrow();
    expect(row.token_enc).toMatch(/^v1\./);
    expect(row.token_enc).not.toContain(token);
    expect(await metric(kit.url, 'kit_mp_token_refreshes_total{kind="normal"}')).toBe(1);
  });

  it("answers only the cashier's own orders, and only to a logged-in cashier", async () => {
    const id = await cashier.order();
    expect((await other.code(id)).body).toMatchObject({ error: 'not_found' });
    expect((await other.code(id)).status).toBe(404);
    const anonymous = await fetch(`${kit.url}/pos/api/orders/${id}/mini-program-code`);
    expect(anonymous.status).toBe(401);
    expect(callsOf(proxy.calls, 'getwxacodeunlimit').some((c) => c.json.scene.endsWith(id))).toBe(false);
  });

  it('draws no code for an order that can no longer be paid, but keeps serving one drawn while it could', async () => {
    const drawn = await cashier.order();
    expect((await cashier.code(drawn)).status).toBe(200);
    const never = await cashier.order();
    // Both expire (as ORDER_TTL would have it).
    await kit.runtime.db.db
      .updateTable('prepay_orders')
      .set({ expire_at: Date.now() - 1 })
      .where('prepay_id', 'in', [drawn, never])
      .execute();
    expect((await cashier.code(drawn)).status).toBe(200);
    const refused = await cashier.code(never);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'order_not_active' });
  });

  it('replaces a token the platform invalidated with exactly one forced refresh and one retry', async () => {
    const before = proxy.calls.length;
    expect((await sandboxPost(kit.url, '/faults', { mpTokens: 'revoked' })).status).toBe(200);
    const id = await cashier.order();
    const code = await cashier.code(id);
    expect(code.status).toBe(200);
    expect(decodePng(code.image)).toBe(payerLink(kit.url, id));
    const calls = proxy.calls.slice(before);
    expect(callsOf(calls, 'stable_token').map((c) => c.json.force_refresh)).toEqual([true]);
    expect(callsOf(calls, 'getwxacodeunlimit')).toHaveLength(2);
    expect(await metric(kit.url, 'kit_mp_token_refreshes_total{kind="forced"}')).toBe(1);
    expect(await metric(kit.url, 'kit_mp_platform_errors_total{api="getwxacodeunlimit",errcode="40001"}')).toBe(1);
    // The new token serves the next codes without another refresh.
    const next = proxy.calls.length;
    expect((await cashier.code(await cashier.order())).status).toBe(200);
    expect(callsOf(proxy.calls.slice(next), 'stable_token')).toHaveLength(0);
  });

  it('never loops: a token refused again after its replacement is the platform refusing the code', async () => {
    const before = proxy.calls.length;
    proxy.intercept = (call) => (call.url.includes('/getwxacodeunlimit') ? { status: 200, body: { errcode: 40001, errmsg: 'invalid credential' } } : undefined);
    const refused = await cashier.code(await cashier.order());
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ error: 'mp_code_failed', msg: expect.stringMatching(/errcode 40001/) });
    const calls = proxy.calls.slice(before);
    expect(callsOf(calls, 'getwxacodeunlimit')).toHaveLength(2);
    // One refresh; not forced, since the last forced one was less than 30 s ago.
    expect(callsOf(calls, 'stable_token').map((c) => c.json.force_refresh)).toEqual([false]);
  });

  it('says the platform cannot be reached, and refuses other errcodes without a refresh', async () => {
    proxy.intercept = (call) => (call.url.includes('/getwxacodeunlimit') ? { status: 503, body: {} } : undefined);
    const down = await cashier.code(await cashier.order());
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ error: 'mp_code_unavailable' });
    expect(await metric(kit.url, 'kit_mp_platform_errors_total{api="getwxacodeunlimit",errcode="unreachable"}')).toBe(1);

    const before = proxy.calls.length;
    proxy.intercept = (call) => (call.url.includes('/getwxacodeunlimit') ? { status: 200, body: { errcode: 41030, errmsg: 'invalid page rule' } } : undefined);
    const refused = await cashier.code(await cashier.order());
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ error: 'mp_code_failed' });
    expect(callsOf(proxy.calls.slice(before), 'stable_token')).toHaveLength(0);
    expect(callsOf(proxy.calls.slice(before), 'getwxacodeunlimit')).toHaveLength(1);
  });
});

describeEachBackend('the mini-program code of a trial version', (backend) => {
  let kit: TestKit;
  let proxy: PlatformProxy;
  afterAll(async () => {
    await kit?.close();
    await proxy?.close();
  });

  it('asks for env_version trial without check_path, and says which tab the display shows', async () => {
    proxy = await startPlatformProxy();
    kit = await startTestKit(backend, { MP_API_URL: proxy.url, MP_CODE_ENV_VERSION: 'trial', MP_CODE_PAGE: 'pages/pay/trial', POS_MP_CODE: 'link' });
    proxy.target = `${kit.url}/sandbox`;
    const app = await kit.newApp();
    const shop = await createMerchants(app.client, app.appId);
    const cashier = new Cashier(kit.url);
    await cashier.login(shop.subId, shop.pw);
    const { body } = await cashier.call('POST', '/orders', { amount: '5.00' });
    expect(body.order.miniProgramCode).toBe('link');
    const code = await cashier.code(body.order.prepayId);
    expect(code.status).toBe(200);
    expect(decodePng(code.image)).toBe(`${kit.url}/mp/#/pages/pay/trial?scene=${encodeURIComponent(`sm.pay?prepayid=${body.order.prepayId}`)}`);
    expect(callsOf(proxy.calls, 'getwxacodeunlimit')[0].json).toMatchObject({ page: 'pages/pay/trial', check_path: false, env_version: 'trial' });
  });
});
