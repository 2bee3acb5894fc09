/**
 * The ways to pay (design 7.2): every way declared by the wallets pays through `POST
 * /submerchant-pay/pay {prepayId, way, …}` and through its own endpoint, answering the same; an
 * unknown way is a 400 naming `way`; the reference describes `/pay` as a `oneOf` over the ways, each
 * named, and says each way in Chinese from its declaration.
 */
import { WAYS, type WayName } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { bothWalletsFixture, newOrder, sandboxOpenId, sandboxPost, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

/** What a way takes beyond `prepayId`, as a payer of the sandbox would give it. */
async function inputOf(kit: TestKit, way: string): Promise<Record<string, unknown>> {
  const config = kit.runtime.config;
  if (way === 'socialPay') return { openId: await sandboxOpenId(kit.url, 'ways-payer', { appid: config.MP_APPID!, secret: config.MP_SECRET! }) };
  if (way === 'alipayMini') return { buyerOpenId: 'sandbox_buyer_ways_01' };
  if (way === 'alipayWap') return { returnUrl: 'https://shop.example.com/paid' };
  return {};
}

/** The sandbox's payer pays what a way's `args` hold. */
function payerPays(kit: TestKit, way: string, args: Record<string, string>) {
  switch (way) {
    case 'socialPayNative':
      return sandboxPost(kit.url, '/pay', { codeUrl: args.code_url });
    case 'socialPay':
      return sandboxPost(kit.url, '/pay', { prepayId: args.package.slice('prepay_id='.length) });
    case 'socialPayApp':
      return sandboxPost(kit.url, '/pay', { prepayId: args.prepayid });
    case 'alipayNative':
      return sandboxPost(kit.url, '/alipay/pay', { qrCode: args.qr_code });
    case 'alipayMini':
      return sandboxPost(kit.url, '/alipay/pay', { tradeNo: args.tradeNO });
    case 'alipayApp':
      return sandboxPost(kit.url, '/alipay/pay', { orderStr: args.orderStr });
    case 'alipayWap':
      return sandboxPost(kit.url, '/alipay/pay', { wapUrl: args.url });
  }
  throw new Error(`this test does not know how a payer pays ${way}`);
}

describeEachBackend('ways to pay', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    kit = await startTestKit(backend);
    receiver = await startReceiver();
    f = await bothWalletsFixture(kit, 'appAuthToken_ways_0001', `${receiver.url}/cb`);
  });
  afterAll(async () => {
    await kit.close();
    await receiver.close();
  });

  it('knows the ways of the two wallets and the payment code of both', () => {
    expect(WAYS.map((w) => w.name)).toEqual([
      'socialPayNative',
      'socialPay',
      'socialPayApp',
      'alipayNative',
      'alipayMini',
      'alipayApp',
      'alipayWap',
      'codePay',
    ]);
  });

  describe.each(WAYS.filter((w) => w.chosenBy !== 'code').map((w) => w.name))('%s', (name) => {
    it('pays through POST /submerchant-pay/pay, whose answer is the way’s own endpoint’s', async () => {
      const prepayId = await newOrder(f, '3.21');
      const input = await inputOf(kit, name);
      const viaPay = await f.client.call<any>('POST', '/submerchant-pay/pay', { body: { prepayId, way: name, ...input } });
      expect(viaPay).toMatchObject({ httpStatus: 200, body: { version: 1, status: 'success', args: expect.any(Object) } });
      // The same order asked again through the way's own endpoint: the same shape, the same channel order.
      const own = await f.client.call<any>('POST', `/submerchant-pay/${name}`, { body: { prepayId, ...input } });
      expect(own.httpStatus).toBe(200);
      expect(Object.keys(own.body).sort()).toEqual(Object.keys(viaPay.body).sort());
      expect(Object.keys(own.body.args).sort()).toEqual(Object.keys(viaPay.body.args).sort());
      const typed = await f.client.pay({ prepayId, way: name as WayName, ...input } as never);
      expect(typed.status).toBe('success');
      expect((await payerPays(kit, name, own.body.args)).status).toBe(200);
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'finish', `${name} paid`);
      await waitFor(() => receiver.received.some((r) => JSON.parse(r.body).prepayId === prepayId), `the callback of ${name}`);
    });
  });

  it('refuses an unknown way, or none, with a 400 naming `way`, and changes nothing', async () => {
    const prepayId = await newOrder(f);
    for (const body of [{ prepayId, way: 'cashPay' }, { prepayId }, { prepayId, way: 7 }]) {
      const answer = await f.client.call<any>('POST', '/submerchant-pay/pay', { body });
      expect(answer).toMatchObject({ httpStatus: 400, body: { status: 'fail', error: 'invalid_request', msg: expect.stringMatching(/\bway\b/) } });
    }
    // A way's input is checked by that way: `socialPay` needs its open id.
    const missing = await f.client.call<any>('POST', '/submerchant-pay/pay', { body: { prepayId, way: 'socialPay' } });
    expect(missing).toMatchObject({ httpStatus: 400, body: { error: 'invalid_request', msg: expect.stringMatching(/openId/) } });
    expect((await kit.runtime.services.payments.state(prepayId)).channelOrders).toEqual([]);
  });

  it('is described as a oneOf over the ways, each named, and each way in Chinese from its declaration', async () => {
    const doc = (await (await fetch(`${kit.url}/openapi.json`)).json()) as any;
    const schema = doc.paths['/submerchant-pay/pay'].post.requestBody.content['application/json'].schema;
    expect((schema.oneOf ?? schema.anyOf).map((s: { title?: string }) => s.title)).toEqual(WAYS.map((w) => w.name));
    const zh = (await (await fetch(`${kit.url}/openapi.json?lang=zh-CN`)).json()) as any;
    for (const way of WAYS) expect(zh.paths[`/submerchant-pay/${way.name}`].post.summary).toBe(`${way.section} ${way.words['zh-CN'].summary}`);
  });
});
