/**
 * The payer page's one route for every way it pays with (`POST /mp/api/pay {prepayId, way, …}`),
 * over real HTTP against a service whose sandbox plays both wallets: the social app's mini-program
 * (`socialPay`, also without `way` as before), Alipay's mini-program (`alipayMini`, its login code)
 * and its browser page (`alipayWap`, where to come back); a way's own route from before it (its
 * declaration's `page.alias`) answers the same; what the route refuses, naming the field.
 */
import { startTestKit, type TestKit } from '../support/kit';
import { describeEachBackend } from '../support/backends';
import { bothWalletsFixture, newOrder, sandboxPost, type PayFixture } from '../support/payments';

async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describeEachBackend('the payer page: one route for every way', (backend) => {
  let kit: TestKit;
  let f: PayFixture;

  beforeAll(async () => {
    kit = await startTestKit(backend);
    f = await bothWalletsFixture(kit, 'appAuthToken_mp_ways_0001', 'https://shop.example/cb');
  });
  afterAll(async () => {
    await kit.close();
  });

  const socialCode = async (user: string) => (await sandboxPost(kit.url, '/login', { user })).body.code as string;
  const alipayCode = async (buyerOpenId: string) => (await sandboxPost(kit.url, '/alipay/auth-code', { buyerOpenId })).body.authCode as string;
  const channelOrders = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders;

  it("pays the social app's mini-program way, named or (as before `way`) not", async () => {
    for (const way of [{ way: 'socialPay' }, {}]) {
      const prepayId = await newOrder(f, '3.10');
      const a = await post(kit.url, '/mp/api/pay', { prepayId, ...way, code: await socialCode('payer-ways-1') });
      expect(a).toMatchObject({ status: 200, body: { version: 1, status: 'success', args: { package: expect.stringMatching(/^prepay_id=/) } } });
      expect(JSON.stringify(a.body)).not.toMatch(/openid/i);
      expect((await channelOrders(prepayId))[0]).toMatchObject({ trade_type: 'JSAPI' });
    }
  });

  it("pays Alipay's mini-program way with its login code, as its own route from before does", async () => {
    const prepayId = await newOrder(f, '3.20');
    const a = await post(kit.url, '/mp/api/pay', { prepayId, way: 'alipayMini', code: await alipayCode('sandbox_buyer_ways_0001') });
    expect(a).toMatchObject({ status: 200, body: { version: 1, status: 'success', args: { tradeNO: expect.any(String) } } });
    expect((await channelOrders(prepayId))[0]).toMatchObject({ trade_type: 'WALLET_MINI', open_id: 'sandbox_buyer_ways_0001' });
    // The alias: the same way, its code named `authCode`; asked again for the same payer, the same trade.
    const alias = await post(kit.url, '/mp/api/alipay/pay', { prepayId, authCode: await alipayCode('sandbox_buyer_ways_0001') });
    expect(alias).toMatchObject({ status: 200, body: { status: 'success', args: { tradeNO: a.body.args.tradeNO } } });
    // A code is good once, on either route.
    const code = await alipayCode('sandbox_buyer_ways_0002');
    expect((await post(kit.url, '/mp/api/pay', { prepayId, way: 'alipayMini', code })).status).toBe(200);
    expect(await post(kit.url, '/mp/api/pay', { prepayId, way: 'alipayMini', code })).toMatchObject({ status: 400, body: { error: 'mp_login_failed' } });
  });

  it("pays Alipay's browser page way, back to where the page says, as its own route from before does", async () => {
    const prepayId = await newOrder(f, '3.30');
    const returnUrl = `${kit.url}/mp/#/pages/pay/index?scene=x&alipayReturn=1`;
    const a = await post(kit.url, '/mp/api/pay', { prepayId, way: 'alipayWap', returnUrl });
    expect(a).toMatchObject({ status: 200, body: { version: 1, status: 'success', args: { url: expect.stringContaining('/sandbox/alipay/gateway.do?') } } });
    expect(new URL(a.body.args.url).searchParams.get('return_url')).toBe(returnUrl);
    const alias = await post(kit.url, '/mp/api/alipay/wap', { prepayId });
    expect(alias).toMatchObject({ status: 200, body: { status: 'success', args: { url: expect.stringContaining('/sandbox/alipay/gateway.do?') } } });
    expect(new URL(alias.body.args.url).searchParams.get('return_url')).toBeNull();
  });

  it('refuses a way the page does not pay with naming `way`, and what a way does not take, changing nothing', async () => {
    const prepayId = await newOrder(f, '3.40');
    const code = await socialCode('payer-ways-2');
    for (const way of ['noSuchWay', 'socialPayNative', 'codePay', 42]) {
      const a = await post(kit.url, '/mp/api/pay', { prepayId, way, code });
      expect(a).toMatchObject({ status: 400, body: { status: 'fail', error: 'invalid_request' } });
      expect(a.body.msg).toMatch(/^body: way: /);
    }
    const refused = [
      [{ prepayId, way: 'alipayMini' }, 'code'],
      [{ prepayId, way: 'socialPay', code, returnUrl: 'https://shop.example/back' }, 'returnUrl'],
      [{ prepayId, way: 'alipayWap', returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
      [{ prepayId, way: 'alipayWap', code }, 'code'],
      [{ way: 'socialPay', code }, 'prepayId'],
    ] as const;
    for (const [body, field] of refused) {
      const a = await post(kit.url, '/mp/api/pay', body);
      expect(a).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(a.body.msg).toContain(field);
    }
    expect((await post(kit.url, '/mp/api/alipay/pay', { prepayId, code })).status).toBe(400);
    expect((await post(kit.url, '/mp/api/pay', { prepayId: 'NoSuchOrder1', way: 'alipayWap' })).body).toMatchObject({ error: 'not_found' });
    expect(await channelOrders(prepayId)).toEqual([]);
  });
});
