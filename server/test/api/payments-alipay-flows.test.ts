/**
 * Alipay's other flows (design 6.3) through real HTTP against the sandbox playing Alipay with the
 * development keys: `alipayMini` (a trade for the payer's open id), `alipayApp` (the signed order
 * string) and `alipayWap` (the signed payment page URL, paid on the sandbox's Alipay cashier page),
 * each paid end to end with one `finish` callback; what the kit signs verifies under alipay-sdk;
 * the mini-program's routes (`/mp/api/alipay/pay` with a login code, `/mp/api/alipay/wap`); bad
 * input; one payable order per prepay order across flows; profit sharing refused for an
 * Alipay-paid order.
 */
import type { KeyObject } from 'node:crypto';
import { AlipaySdk } from 'alipay-sdk';
import { devAlipayMaterial, type DevAlipayMaterial } from '@kit/sandbox';
import { alipayTime } from '../../src/payments/providers/alipay/time';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { jobByKey, newOrder, sandboxPost, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const pem = (k: KeyObject, type: 'pkcs8' | 'spki') => (k.export({ format: 'pem', type }) as string).trim();
const paramsOf = (query: string): Record<string, string> => Object.fromEntries(new URLSearchParams(query));

async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describeEachBackend('Alipay mini-program, app and payment-page flows', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dev: DevAlipayMaterial;
  /** alipay-sdk as Alipay's gateway sees the kit (checks with the application's public key). */
  let sdkAsGateway: AlipaySdk;
  /** alipay-sdk as the application (signs with its key; checks what Alipay signs). */
  let sdkAsApp: AlipaySdk;

  beforeAll(async () => {
    kit = await startTestKit(backend, { PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s' });
    receiver = await startReceiver();
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: 'appAuthToken_flows_0001', notifyCallbackUrl: `${receiver.url}/cb` });
    f = { ...app, ...m };
    dev = devAlipayMaterial(kit.runtime.config.DATA_DIR);
    const gateway = `${kit.url}/sandbox/alipay/gateway.do`;
    sdkAsGateway = new AlipaySdk({
      appId: dev.appId,
      privateKey: pem(dev.alipayPrivateKey, 'pkcs8'),
      keyType: 'PKCS8',
      alipayPublicKey: pem(dev.appPublicKey, 'spki'),
      gateway,
    });
    sdkAsApp = new AlipaySdk({
      appId: dev.appId,
      privateKey: pem(dev.appPrivateKey, 'pkcs8'),
      keyType: 'PKCS8',
      alipayPublicKey: pem(dev.alipayPublicKey, 'spki'),
      gateway,
    });
  });
  afterAll(async () => {
    await kit.close();
    await receiver.close();
  });

  const callbacksOf = (prepayId: string) => kit.runtime.services.callbacks.history(prepayId);
  const finishedOnce = async (prepayId: string) => {
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    await waitFor(async () => (await callbacksOf(prepayId)).some((c) => c.status === 'finish' && c.state === 'delivered'), 'finish callback');
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish']);
  };
  const orderExpiry = async (prepayId: string) => (await kit.runtime.services.prepay.find(prepayId))!.expire_at;

  /** What every request carries (the signed parameters of a string or URL the kit made). */
  const checkCommon = async (p: Record<string, string>, method: string, prepayId: string, amount: string) => {
    const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.state === 'open')!;
    expect(p).toMatchObject({
      app_id: dev.appId,
      method,
      charset: 'utf-8',
      sign_type: 'RSA2',
      version: '1.0',
      app_auth_token: 'appAuthToken_flows_0001',
      notify_url: `${kit.url}/pay-notify/alipay`,
    });
    // China time, whatever the host's zone; signed within the last minute (of the service's clock).
    const stamped = Date.parse(`${p.timestamp.replace(' ', 'T')}+08:00`);
    expect(Math.abs(stamped - kit.clock.now())).toBeLessThan(60_000);
    expect(p.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const biz = JSON.parse(p.biz_content) as Record<string, string>;
    expect(biz).toMatchObject({ out_trade_no: co.out_trade_no, merchant_order_no: prepayId, total_amount: amount, subject: 'Corner Shop' });
    expect(biz.out_trade_no).toMatch(/^[A-Za-z0-9_]{1,64}$/);
    expect(Date.parse(`${biz.time_expire.replace(' ', 'T')}+08:00`)).toBeLessThanOrEqual(await orderExpiry(prepayId));
    return { biz, co };
  };

  test('alipayMini: a trade for the payer’s open id, paid with its tradeNO, finishes with one callback', async () => {
    const prepayId = await newOrder(f, '12.34');
    const a = await f.client.alipayMini(prepayId, 'sandbox_buyer_mini_01');
    expect(a).toMatchObject({ version: 1, status: 'success', args: { tradeNO: expect.stringMatching(/^\d{8}2200/) } });
    // Asked again for the same payer: the same trade.
    expect((await f.client.alipayMini(prepayId, 'sandbox_buyer_mini_01')).args.tradeNO).toBe(a.args.tradeNO);
    const [co] = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
    expect(co).toMatchObject({ channel: 'Alipay', trade_type: 'WALLET_MINI', open_id: 'sandbox_buyer_mini_01', state: 'open' });
    // The trade exists at once: waiting for its buyer.
    const paid = await sandboxPost(kit.url, '/alipay/pay', { tradeNo: a.args.tradeNO });
    expect(paid).toMatchObject({ status: 200, body: { status: 'success', tradeNo: a.args.tradeNO } });
    await finishedOnce(prepayId);
    expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0]).toMatchObject({ state: 'paid', transaction_id: a.args.tradeNO });
  });

  test('alipayApp: the order string is alipay-sdk’s sdkExecute, verifies under alipay-sdk, and pays', async () => {
    const prepayId = await newOrder(f, '23.45');
    const { args } = await f.client.alipayApp(prepayId);
    const kitParams = paramsOf(args.orderStr);
    const { biz } = await checkCommon(kitParams, 'alipay.trade.app.pay', prepayId, '23.45');
    expect(biz.product_code).toBe('QUICK_MSECURITY_PAY');
    expect(sdkAsGateway.checkNotifySignV2(kitParams)).toBe(true);
    expect(sdkAsGateway.checkNotifySignV2({ ...kitParams, biz_content: kitParams.biz_content.replace('23.45', '0.01') })).toBe(false);
    // The SDK signing the same request (same time) writes the same string.
    const sdk = sdkAsApp.sdkExecute(
      'alipay.trade.app.pay',
      { format: 'JSON', timestamp: kitParams.timestamp, notify_url: kitParams.notify_url, app_auth_token: kitParams.app_auth_token, bizContent: biz },
      { bizContentAutoSnakeCase: false },
    );
    expect(paramsOf(sdk)).toEqual(kitParams);
    // Nothing was asked of Alipay: there is no trade until the app pays the string.
    const paid = await sandboxPost(kit.url, '/alipay/pay', { orderStr: args.orderStr });
    expect(paid).toMatchObject({ status: 200, body: { status: 'success' } });
    await finishedOnce(prepayId);
  });

  test('alipayWap: the URL is alipay-sdk’s pageExecute (GET), its cashier page pays and returns to return_url', async () => {
    const prepayId = await newOrder(f, '34.56');
    const returnUrl = 'https://shop.example.test/paid?order=A-1';
    const { args } = await f.client.alipayWap(prepayId, returnUrl);
    const url = new URL(args.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${kit.url}/sandbox/alipay/gateway.do`);
    const kitParams = Object.fromEntries(url.searchParams);
    const { biz } = await checkCommon(kitParams, 'alipay.trade.wap.pay', prepayId, '34.56');
    expect(kitParams.return_url).toBe(returnUrl);
    expect(biz).toMatchObject({ product_code: 'QUICK_WAP_WAY', quit_url: returnUrl });
    expect(sdkAsGateway.checkNotifySignV2(kitParams)).toBe(true);
    // The SDK's page URL for the same request: the same parameters (it adds its own `alipay_sdk`, so its sign differs).
    const sdkUrl = new URL(
      sdkAsApp.pageExecute('alipay.trade.wap.pay', 'GET', {
        format: 'JSON',
        timestamp: kitParams.timestamp,
        notify_url: kitParams.notify_url,
        return_url: returnUrl,
        app_auth_token: kitParams.app_auth_token,
        bizContent: biz,
      }),
    );
    const { sign: _s, alipay_sdk: _v, ...sdkParams } = Object.fromEntries(sdkUrl.searchParams);
    const { sign: _k, ...unsigned } = kitParams;
    expect(sdkParams).toEqual(unsigned);

    // The sandbox's Alipay cashier: the page checks the kit's signature, in both languages.
    const en = await fetch(`${args.url}&lang=en`);
    expect(en.status).toBe(200);
    const enPage = await en.text();
    expect(enPage).toContain('Pay with Alipay');
    expect(enPage).toContain('¥34.56');
    expect(enPage).toContain('data-state="WAIT_BUYER_PAY"');
    // The order number the POS shows (the prepay id), not the channel order's out_trade_no.
    expect(enPage).toContain(`<div class="muted" id="alipay-order">Order ${prepayId}</div>`);
    const zh = await (await fetch(args.url, { headers: { 'accept-language': 'zh-CN' } })).text();
    expect(zh).toContain('用支付宝付款');
    expect(zh).toContain(`订单 ${prepayId}`);
    const forged = await fetch(args.url.replace('34.56', '0.01'));
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('isv.invalid-signature');

    // The Pay button: the sandbox pays, notifies, and sends the payer to return_url with Alipay's signed return.
    const paid = await sandboxPost(kit.url, '/alipay/pay', { wapUrl: args.url });
    expect(paid).toMatchObject({ status: 200, body: { status: 'success' } });
    const back = new URL(paid.body.returnUrl as string);
    expect(`${back.origin}${back.pathname}`).toBe('https://shop.example.test/paid');
    const returned = Object.fromEntries(back.searchParams);
    expect(returned).toMatchObject({ order: 'A-1', method: 'alipay.trade.wap.pay.return', total_amount: '34.56', trade_no: paid.body.tradeNo });
    const { order: _o, ...signedReturn } = returned;
    expect(sdkAsApp.checkNotifySign(signedReturn)).toBe(true);
    await finishedOnce(prepayId);
    // Opened again, the page says it is paid.
    expect(await (await fetch(args.url)).text()).toContain('data-state="TRADE_SUCCESS"');
  });

  test('one payable order at Alipay per prepay order: switching flows closes the previous one', async () => {
    const prepayId = await newOrder(f, '5.00');
    const wap = await f.client.alipayWap(prepayId);
    expect(Object.fromEntries(new URL(wap.args.url).searchParams).return_url).toBeUndefined();
    const mini = await f.client.alipayMini(prepayId, 'sandbox_buyer_switch');
    const rows = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
    expect(rows.map((r) => [r.trade_type, r.state]).sort()).toEqual([
      ['WALLET_MINI', 'open'],
      ['WAP', 'closed'],
    ]);
    expect((await sandboxPost(kit.url, '/alipay/pay', { tradeNo: mini.args.tradeNO })).status).toBe(200);
    await finishedOnce(prepayId);
    // Paid: no flow gives arguments any more.
    const again = await f.client.call<any>('POST', '/submerchant-pay/alipayApp', { body: { prepayId } });
    expect(again.body).toMatchObject({ status: 'fail', error: 'order_not_active' });
  });

  test("Alipay's refusal of alipay.trade.create is not success and names sub_code and sub_msg", async () => {
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: 'appAuthToken_withdrawn_mini' });
    expect((await sandboxPost(kit.url, '/alipay/revoke', { appAuthToken: 'appAuthToken_withdrawn_mini' })).status).toBe(200);
    const order = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '2.00' });
    const refused = await app.client.call<any>('POST', '/submerchant-pay/alipayMini', { body: { prepayId: order.prepayId, buyerOpenId: 'sandbox_buyer_x' } });
    expect(refused.body).toMatchObject({ version: 1, status: 'fail', error: 'channel_error' });
    expect(refused.body.msg).toContain('aop.invalid-app-auth-token');
    expect(refused.body.msg).toContain('无效的应用授权令牌');
  });

  test('a payment page whose notification is lost converges through alipay.trade.query (not opened yet: asked again, not closed)', async () => {
    const faults = (set: object) => sandboxPost(kit.url, '/faults', set);
    expect((await faults({ payNotifications: 'drop' })).status).toBe(200);
    // The clock moves only as the test moves it: each query of PAYMENT_QUERY_SCHEDULE (300 ms, 300 ms, 500 ms, …) runs when it says.
    kit.clock.freeze();
    try {
      const prepayId = await newOrder(f, '4.32');
      const { args } = await f.client.alipayWap(prepayId);
      const [co] = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
      // Followed while nobody has opened it: asked twice (no trade at Alipay yet), still open, still followed.
      await kit.advance('300ms');
      await kit.advance('300ms');
      expect(await jobByKey(kit, 'payment.reconcile', co.out_trade_no)).toMatchObject({ state: 'pending', attempts: 2 });
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].state).toBe('open');
      const paid = await sandboxPost(kit.url, '/alipay/pay', { wapUrl: args.url });
      expect(paid.status).toBe(200);
      // The next query finds it paid.
      await kit.advance('500ms');
      await finishedOnce(prepayId);
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0]).toMatchObject({ paid_via: 'query', transaction_id: paid.body.tradeNo });
    } finally {
      kit.clock.resume();
      await faults({});
    }
  });

  test('bad input answers 400 in the specification’s shape and changes nothing', async () => {
    const prepayId = await newOrder(f, '6.00');
    const bad = [
      ['/submerchant-pay/alipayMini', { prepayId }],
      ['/submerchant-pay/alipayMini', { prepayId, buyerOpenId: 'has spaces' }],
      ['/submerchant-pay/alipayMini', { prepayId, buyerOpenId: 'x'.repeat(129) }],
      ['/submerchant-pay/alipayApp', { prepayId, extra: 1 }],
      ['/submerchant-pay/alipayApp', {}],
      ['/submerchant-pay/alipayWap', { prepayId, returnUrl: 'javascript:alert(1)' }],
      ['/submerchant-pay/alipayWap', { prepayId, returnUrl: 'ftp://shop.example.test/' }],
      ['/submerchant-pay/alipayWap', { prepayId, returnUrl: 42 }],
    ] as const;
    for (const [path, body] of bad) {
      const answer = await f.client.call<any>('POST', path, { body });
      expect({ path, body, answer: answer.httpStatus }).toEqual({ path, body, answer: 400 });
      expect(answer.body).toMatchObject({ status: 'fail', error: 'invalid_request', msg: expect.any(String) });
    }
    expect((await kit.runtime.services.payments.state(prepayId)).channelOrders).toEqual([]);
    // Someone else's order is not found; an unsigned call is refused.
    const stranger = await kit.newApp();
    expect((await stranger.client.call<any>('POST', '/submerchant-pay/alipayApp', { body: { prepayId } })).httpStatus).toBe(404);
    expect((await f.client.call<any>('POST', '/submerchant-pay/alipayWap', { body: { prepayId }, unsigned: true })).httpStatus).toBe(401);
  });

  test('/mp/api/alipay/pay: the login code of the mini-program gives the payer, whose trade pays; a code works once', async () => {
    const prepayId = await newOrder(f, '7.89');
    const code = await sandboxPost(kit.url, '/alipay/auth-code', { buyerOpenId: 'sandbox_buyer_mp_0001' });
    expect(code).toMatchObject({ status: 200, body: { status: 'success', authCode: expect.any(String), buyerOpenId: 'sandbox_buyer_mp_0001' } });
    const pay = await post(kit.url, '/mp/api/alipay/pay', { prepayId, authCode: code.body.authCode });
    expect(pay).toMatchObject({ status: 200, body: { version: 1, status: 'success', args: { tradeNO: expect.any(String) } } });
    expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0]).toMatchObject({
      trade_type: 'WALLET_MINI',
      open_id: 'sandbox_buyer_mp_0001',
    });
    // The same code again, or one the sandbox never issued: refused as a login.
    for (const authCode of [code.body.authCode, 'sandboxNeverIssued0001']) {
      const refused = await post(kit.url, '/mp/api/alipay/pay', { prepayId, authCode });
      expect(refused).toMatchObject({ status: 400, body: { status: 'fail', error: 'mp_login_failed' } });
      expect(refused.body.msg).toContain('isv.code-invalid');
    }
    expect((await post(kit.url, '/mp/api/alipay/pay', { prepayId })).status).toBe(400);
    expect((await post(kit.url, '/mp/api/alipay/pay', { prepayId: 'NoSuchOrder1', authCode: 'x' })).body).toMatchObject({ error: 'not_found' });
    expect((await sandboxPost(kit.url, '/alipay/pay', { tradeNo: pay.body.args.tradeNO })).status).toBe(200);
    await finishedOnce(prepayId);
  });

  test('/mp/api/alipay/wap: the payment page URL for Alipay’s browser', async () => {
    const prepayId = await newOrder(f, '8.90');
    const answer = await post(kit.url, '/mp/api/alipay/wap', { prepayId, returnUrl: `${kit.url}/mp/#/pages/pay/index?prepayid=${prepayId}` });
    expect(answer).toMatchObject({
      status: 200,
      body: { version: 1, status: 'success', args: { url: expect.stringContaining('/sandbox/alipay/gateway.do?') } },
    });
    const params = Object.fromEntries(new URL(answer.body.args.url).searchParams);
    expect(params).toMatchObject({ method: 'alipay.trade.wap.pay', return_url: `${kit.url}/mp/#/pages/pay/index?prepayid=${prepayId}` });
    expect(sdkAsGateway.checkNotifySignV2(params)).toBe(true);
    expect((await post(kit.url, '/mp/api/alipay/wap', { prepayId, returnUrl: 'javascript:x' })).status).toBe(400);
    expect((await sandboxPost(kit.url, '/alipay/pay', { wapUrl: answer.body.args.url })).status).toBe(200);
    await finishedOnce(prepayId);
    // Paid: the router answers that the order can no longer be paid.
    expect((await post(kit.url, '/mp/api/alipay/wap', { prepayId })).body).toMatchObject({ status: 'fail', error: 'order_not_active' });
  });

  test('profit sharing (4.8) of an Alipay-paid order is refused with a clear error, never a 5xx', async () => {
    await kit.runtime.services.merchants.setContracted(f.parentId, true);
    try {
      const prepayId = await newOrder(f, '30.00');
      const { args } = await f.client.alipayApp(prepayId);
      expect((await sandboxPost(kit.url, '/alipay/pay', { orderStr: args.orderStr })).status).toBe(200);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      const split = await f.client.call<any>('POST', '/submerchant-pay/profitSharing/orders', {
        body: {
          prepayId,
          outOrderNo: 'ALIPAY_SPLIT_1',
          receivers: [{ type: 'PERSONAL_OPENID', account: 'oPartner0000000000000000001', amount: '1.00', description: 'x' }],
        },
      });
      expect(split).toMatchObject({ httpStatus: 400, body: { status: 'fail', error: 'profit_sharing_not_enabled', code: 'E0024' } });
      expect(split.body.msg).toMatch(/channel Alipay, which does not share profits/);
    } finally {
      await kit.runtime.services.merchants.setContracted(f.parentId, false);
    }
  });

  test('the stand-in’s alipay.system.oauth.token, called by alipay-sdk as the mini-program: an issued code once, signed answers', async () => {
    const gateway = `${kit.url}/sandbox/alipay/gateway.do`;
    const asMini = new AlipaySdk({
      appId: dev.miniAppId,
      privateKey: pem(dev.appPrivateKey, 'pkcs8'),
      keyType: 'PKCS8',
      alipayPublicKey: pem(dev.alipayPublicKey, 'spki'),
      gateway,
    });
    const code = (await sandboxPost(kit.url, '/alipay/auth-code', {})).body.authCode as string;
    // alipay-sdk stamps the host's local time: given China time, as Alipay wants it.
    const exchange = (sdk: AlipaySdk, authCode: string, validateSign = false) =>
      sdk.exec('alipay.system.oauth.token', { grantType: 'authorization_code', code: authCode, timestamp: alipayTime(Date.now()) }, { validateSign });
    // alipay-sdk verifies the answer's signature before it gives it (its check cannot read an `error_response`'s, so refusals are read unchecked).
    expect(await exchange(asMini, code, true)).toMatchObject({ openId: 'sandbox_alipay_buyer', accessToken: expect.any(String) });
    expect(await exchange(asMini, code)).toMatchObject({ code: '40002', subCode: 'isv.code-invalid' });
    // The kit's application is not the mini-program the codes are for.
    const asKitApp = new AlipaySdk({
      appId: dev.appId,
      privateKey: pem(dev.appPrivateKey, 'pkcs8'),
      keyType: 'PKCS8',
      alipayPublicKey: pem(dev.alipayPublicKey, 'spki'),
      gateway,
    });
    const other = (await sandboxPost(kit.url, '/alipay/auth-code', {})).body.authCode as string;
    expect(await exchange(asKitApp, other)).toMatchObject({ subCode: 'isv.invalid-app-id' });
  });
});
