/**
 * The kit configured as in production (ALIPAY_APP_ID, ALIPAY_PRIVATE_KEY, ALIPAY_PUBLIC_KEY,
 * ALIPAY_GATEWAY_URL; no sandbox) pays and refunds against an Alipay gateway that follows Alipay's
 * published rules and shares no code with the kit (`support/alipay-platform.ts`: node:crypto,
 * node:http and the official alipay-sdk only). The sandbox's Alipay imports the kit's own signing
 * code, so it cannot tell whether the kit signs and verifies as Alipay does; this platform can.
 * Payment codes too (`alipay.trade.pay`, `alipay.trade.query`, `alipay.trade.cancel`): paid at once,
 * confirmed on the phone, never confirmed and cancelled after CODE_PAY_WAIT, refused, unanswered.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { KitApiError } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startAlipayPlatform, type AlipayPlatform } from '../support/alipay-platform';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { newOrder, payApi, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const TOKEN = '202611BBf4e3a1d2c5b04a9e8c7d6f5e4d3c2X01';

test('the platform shares no code with the kit: it imports node built-ins and alipay-sdk only', () => {
  const source = readFileSync(path.join(__dirname, '../support/alipay-platform.ts'), 'utf8');
  const imports = [...source.matchAll(/(?:import|from|require\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((i) => !i.startsWith('node:') && i !== 'alipay-sdk')).toEqual([]);
});

/** 4.3's Alipay code for `prepayId` while the platform signs its answers with a key the kit does not trust. */
async function precreateWithForgedAnswers(platform: AlipayPlatform, f: PayFixture, prepayId: string) {
  platform.forgeAnswers(true);
  try {
    return await f.client.call<any>('POST', '/submerchant-pay/alipayNative', { body: { prepayId } });
  } finally {
    platform.forgeAnswers(false);
  }
}

describeEachBackend('Alipay against an independent platform (alipay-sdk as referee)', (backend) => {
  let platform: AlipayPlatform;
  let kit: TestKit;
  let f: PayFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    platform = await startAlipayPlatform();
    kit = await startTestKit(backend, {
      SANDBOX_ENABLED: 'false',
      ALIPAY_APP_ID: platform.appId,
      ALIPAY_PRIVATE_KEY: platform.appPrivateKeyPem,
      ALIPAY_PUBLIC_KEY: platform.alipayPublicKeyPem,
      ALIPAY_GATEWAY_URL: platform.gatewayUrl,
      PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s',
      // A refund left requested is taken over by its follow-up this long after it was sent.
      PAY_GATEWAY_TIMEOUT: '2s',
    });
    receiver = await startReceiver();
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    platform.authorize(TOKEN);
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: TOKEN, notifyCallbackUrl: `${receiver.url}/cb` });
    f = { ...app, ...m };
  });
  afterAll(async () => {
    await kit?.close();
    await receiver?.close();
    await platform?.close();
  });

  const callbacksOf = (prepayId: string) => kit.runtime.services.callbacks.history(prepayId);
  const callsOf = (method: string, outTradeNo: string) => platform.calls.filter((c) => c.method === method && c.biz.out_trade_no === outTradeNo);

  test('alipayNative precreates a code; paid, the notification finishes the order; the 4.6 refund goes through refund and its query', async () => {
    const refusedBefore = platform.refused.length;
    const prepayId = await newOrder(f, '12.34');
    // The service's clock stands still from the code's placing to the notification, so that the
    // follow-up's query (due PAYMENT_QUERY_SCHEDULE after the placing) cannot come first: the
    // notification is what records the payment. Frozen only later, a query already due ran first on a busy machine.
    kit.clock.freeze();
    let outTradeNo: string;
    try {
      const answer = await f.client.alipayNative(prepayId);
      expect(answer).toMatchObject({ version: 1, status: 'success', args: { qr_code: expect.stringMatching(/^https:\/\/qr\.alipay\.com\/bax0\d+$/) } });
      outTradeNo = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].out_trade_no;

      // What Alipay received: one precreate, signed and stamped as its rules say (the platform refuses anything else).
      const [precreate] = callsOf('alipay.trade.precreate', outTradeNo);
      expect(precreate.params).toMatchObject({
        app_id: platform.appId,
        app_auth_token: TOKEN,
        charset: 'utf-8',
        version: '1.0',
        sign_type: 'RSA2',
        notify_url: `${kit.url}/pay-notify/alipay`,
      });
      expect(precreate.biz).toMatchObject({ out_trade_no: outTradeNo, total_amount: '12.34', subject: expect.any(String) });
      expect(precreate.biz.timeout_express).toMatch(/^\d+m$/);

      // The payer scans and pays: Alipay's notification is taken with `success`.
      const paid = await platform.pay(answer.args.qr_code as string);
      expect(paid.notification).toEqual({ status: 200, text: 'success' });
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0]).toMatchObject({
        channel: 'Alipay',
        state: 'paid',
        transaction_id: paid.tradeNo,
        paid_via: 'notification',
      });
    } finally {
      kit.clock.resume();
    }
    await waitFor(async () => (await callbacksOf(prepayId)).some((c) => c.status === 'finish' && c.state === 'delivered'), 'finish callback');
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish']);
    const delivered = () =>
      receiver.received.filter((r) => r.url.startsWith('/cb?') && r.body.includes(`"prepayId":"${prepayId}"`)).map((r) => JSON.parse(r.body).status);
    expect(delivered()).toEqual(['finish']);

    // 4.6: the refund goes to Alipay with out_request_no; its query confirms it; then `refunded`.
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
    await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
    const refunds = callsOf('alipay.trade.refund', outTradeNo);
    expect(refunds.length).toBeGreaterThanOrEqual(1);
    const outRequestNo = refunds[0].biz.out_request_no as string;
    expect(outRequestNo).toMatch(/^[A-Za-z0-9_]{1,64}$/);
    // Retries, if any, keep the same out_request_no.
    expect(refunds.every((c) => c.biz.out_request_no === outRequestNo && c.biz.refund_amount === '12.34')).toBe(true);
    expect(callsOf('alipay.trade.fastpay.refund.query', outTradeNo).some((c) => c.biz.out_request_no === outRequestNo)).toBe(true);
    expect((await kit.runtime.services.payments.state(prepayId)).refund).toMatchObject({ state: 'success', refund_cents: 1234 });
    await waitFor(async () => (await callbacksOf(prepayId)).length === 2, 'two callbacks');
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
    await waitFor(() => delivered().length === 2, 'refunded delivered');
    expect(delivered()).toEqual(['finish', 'refunded']);
    // No request of the kit's was refused along the way (signature, app id, timestamp, charset, version…).
    expect(platform.refused.slice(refusedBefore)).toEqual([]);
  });

  test('a refund Alipay did not take (the refund query names it without refund_status) is sent again under the same out_request_no until it is', async () => {
    const prepayId = await newOrder(f, '4.32');
    const answer = await f.client.alipayNative(prepayId);
    expect((await platform.pay(answer.args.qr_code as string)).notification).toEqual({ status: 200, text: 'success' });
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    const outTradeNo = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].out_trade_no;
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    platform.takeRefunds(false);
    try {
      const busy = await payApi.refund(f.client, prepayId, token);
      expect(busy).toMatchObject({ httpStatus: 503, body: { error: 'channel_unavailable' } });
      expect(busy.body.msg).toContain('ACQ.SYSTEM_ERROR');
      // The follow-up asks, hears no refund_status, and sends the refund again.
      await waitFor(() => callsOf('alipay.trade.refund', outTradeNo).length >= 2, 'the refund sent again');
      expect(callsOf('alipay.trade.fastpay.refund.query', outTradeNo).length).toBeGreaterThanOrEqual(1);
    } finally {
      platform.takeRefunds(true);
    }
    await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
    const refunds = callsOf('alipay.trade.refund', outTradeNo);
    expect(new Set(refunds.map((c) => `${c.biz.out_request_no as string} ${c.biz.refund_amount as string}`))).toEqual(
      new Set([`${(await kit.runtime.services.payments.state(prepayId)).refund!.out_refund_no} 4.32`]),
    );
  });

  test('an answer whose sign fails is never used: the platform counts as unreachable, and the same order succeeds once answers verify', async () => {
    const prepayId = await newOrder(f, '5.00');
    const forged = await precreateWithForgedAnswers(platform, f, prepayId);
    expect(forged.body).toMatchObject({ status: 'fail', error: 'channel_unavailable' });
    expect(forged.body.msg).toMatch(/signature does not verify/);
    expect(JSON.stringify(forged.body)).not.toContain('qr.alipay.com');
    const outTradeNo = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0]?.out_trade_no;
    // Alipay did receive the precreate: the kit refused its answer, not the other way round.
    expect(platform.calls.some((c) => c.method === 'alipay.trade.precreate' && (outTradeNo === undefined || c.biz.out_trade_no === outTradeNo))).toBe(true);
    const again = await f.client.alipayNative(prepayId);
    expect(again).toMatchObject({ status: 'success', args: { qr_code: expect.stringMatching(/^https:\/\/qr\.alipay\.com\//) } });
  });

  test("a merchant whose authorization Alipay does not know: the signed refusal's sub_code and sub_msg are in msg", async () => {
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: '202611BBunknownAuthorization000000000X02' });
    const order = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '2.00' });
    const refused = await app.client.call<any>('POST', '/submerchant-pay/alipayNative', { body: { prepayId: order.prepayId } });
    expect(refused.body).toMatchObject({ version: 1, status: 'fail', error: 'channel_error' });
    expect(refused.body.msg).toContain('aop.invalid-app-auth-token');
    expect(refused.body.msg).toContain('无效的应用授权令牌');
  });
});

describeEachBackend('Alipay certificate mode against an independent platform', (backend) => {
  let platform: AlipayPlatform;
  let kit: TestKit;
  let f: PayFixture;

  beforeAll(async () => {
    platform = await startAlipayPlatform({ certificateMode: true });
    const certs = platform.certificates!;
    kit = await startTestKit(backend, {
      SANDBOX_ENABLED: 'false',
      ALIPAY_APP_ID: platform.appId,
      ALIPAY_PRIVATE_KEY: platform.appPrivateKeyPem,
      ALIPAY_APP_CERT: certs.appCert,
      ALIPAY_PUBLIC_CERT: certs.alipayCert,
      ALIPAY_ROOT_CERT: certs.rootCert,
      ALIPAY_GATEWAY_URL: platform.gatewayUrl,
      PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s',
    });
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    platform.authorize(TOKEN);
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: TOKEN });
    f = { ...app, ...m };
  });
  afterAll(async () => {
    await kit?.close();
    await platform?.close();
  });

  test('requests carry the SNs alipay-sdk computes; answers signed by the certificate alipay_cert_sn names are used; paid and refunded', async () => {
    const prepayId = await newOrder(f, '8.88');
    const answer = await f.client.alipayNative(prepayId);
    expect(answer).toMatchObject({ status: 'success', args: { qr_code: expect.stringMatching(/^https:\/\/qr\.alipay\.com\//) } });
    const paid = await platform.pay(answer.args.qr_code as string);
    expect(paid.notification).toEqual({ status: 200, text: 'success' });
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
    await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
    expect(platform.refused).toEqual([]);
    expect(platform.calls.map((c) => c.method)).toEqual(
      expect.arrayContaining(['alipay.trade.precreate', 'alipay.trade.refund', 'alipay.trade.fastpay.refund.query']),
    );
    for (const c of platform.calls)
      expect(c.params).toMatchObject({ app_cert_sn: platform.sns!.appCertSn, alipay_root_cert_sn: platform.sns!.alipayRootCertSn });
  });

  test('an answer signed by another key under the right alipay_cert_sn is never used', async () => {
    const prepayId = await newOrder(f, '1.50');
    const forged = await precreateWithForgedAnswers(platform, f, prepayId);
    expect(forged.body).toMatchObject({ status: 'fail', error: 'channel_unavailable' });
    expect(forged.body.msg).toMatch(/signature does not verify/);
  });
});

/** Alipay's calls about one trade, runs of the same method told once. */
function methodsOf(platform: AlipayPlatform, outTradeNo: string): string[] {
  const methods = platform.calls.filter((c) => c.biz.out_trade_no === outTradeNo).map((c) => c.method);
  return methods.filter((m, i) => m !== methods[i - 1]);
}

describeEachBackend('Alipay payment codes against an independent platform', (backend) => {
  let platform: AlipayPlatform;
  let kit: TestKit;
  let f: PayFixture;

  beforeAll(async () => {
    platform = await startAlipayPlatform();
    // A gateway call's limit of 2 s: a code without an answer is given up (and cancelled) after it.
    kit = await startTestKit(backend, {
      SANDBOX_ENABLED: 'false',
      ALIPAY_APP_ID: platform.appId,
      ALIPAY_PRIVATE_KEY: platform.appPrivateKeyPem,
      ALIPAY_PUBLIC_KEY: platform.alipayPublicKeyPem,
      ALIPAY_GATEWAY_URL: platform.gatewayUrl,
      CODE_PAY_WAIT: '30s',
      PAY_GATEWAY_TIMEOUT: '2s',
    });
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    platform.authorize(TOKEN);
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: TOKEN });
    f = { ...app, ...m };
  });
  afterEach(() => {
    // No request of the kit's was refused (signature, app id, timestamp, token…).
    expect(platform.refused).toEqual([]);
  });
  afterAll(async () => {
    await kit?.close();
    await platform?.close();
  });

  const codeOrders = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders.filter((c) => c.trade_type === 'MICROPAY');
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: KitApiError) => ({ http: e.httpStatus, error: e.error, msg: e.body.msg as string }),
    );

  test('a code pays at once (10000): `paid`, the order finishes; one alipay.trade.pay, scene bar_code', async () => {
    const prepayId = await newOrder(f, '8.80');
    const code = platform.paymentCode('pay');
    expect(await f.client.codePay(prepayId, code, 'POS-01')).toEqual({ version: 1, status: 'success', args: { result: 'paid', channel: 'Alipay' } });
    expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
    const [co] = await codeOrders(prepayId);
    expect(co).toMatchObject({ state: 'paid', paid_via: 'answer', transaction_id: platform.trade(co.out_trade_no)!.tradeNo });
    await kit.settle();
    expect(methodsOf(platform, co.out_trade_no)).toEqual(['alipay.trade.pay']);
    const [sent] = platform.calls.filter((c) => c.biz.out_trade_no === co.out_trade_no);
    expect(sent.params).toMatchObject({ app_auth_token: TOKEN, notify_url: `${kit.url}/pay-notify/alipay` });
    expect(sent.biz).toMatchObject({ scene: 'bar_code', auth_code: code, total_amount: '8.80', subject: expect.any(String), terminal_id: 'POS-01' });
  });

  test('a code the payer confirms answers `waiting` at once (10003) and finishes when they confirm, found by alipay.trade.query', async () => {
    const prepayId = await newOrder(f, '9.90');
    const code = platform.paymentCode('confirm');
    expect(await f.client.pay({ prepayId, way: 'codePay', authCode: code })).toEqual({
      version: 1,
      status: 'success',
      args: { result: 'waiting', channel: 'Alipay' },
    });
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    const [co] = await codeOrders(prepayId);
    expect(platform.trade(co.out_trade_no)?.status).toBe('WAIT_BUYER_PAY');
    // The payer types the password on the phone; the kit's follow-up asks 5 s later.
    platform.confirm(code);
    await kit.advance('5s');
    await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'finish', 'finished');
    expect((await codeOrders(prepayId))[0]).toMatchObject({ state: 'paid', paid_via: 'query', transaction_id: platform.trade(co.out_trade_no)!.tradeNo });
    expect(methodsOf(platform, co.out_trade_no)).toEqual(['alipay.trade.pay', 'alipay.trade.query']);
  });

  test('a code never confirmed is cancelled after CODE_PAY_WAIT (action close); the order stays payable and another code pays it', async () => {
    const prepayId = await newOrder(f, '10.10');
    expect((await f.client.codePay(prepayId, platform.paymentCode('confirm'))).args.result).toBe('waiting');
    const [waiting] = await codeOrders(prepayId);
    await kit.advance('25s');
    expect((await codeOrders(prepayId))[0].state).toBe('open');
    await kit.advance('6s');
    expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
    // Closed at Alipay: nothing had been taken.
    expect(platform.trade(waiting.out_trade_no)).toMatchObject({ status: 'TRADE_CLOSED', cancelled: 'close', refunds: 0 });
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    // The payer refreshes the code; this one pays.
    expect((await f.client.codePay(prepayId, platform.paymentCode('pay'))).args.result).toBe('paid');
    expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
    const paid = (await codeOrders(prepayId)).find((c) => c.state === 'paid')!;
    await kit.settle();
    expect(methodsOf(platform, waiting.out_trade_no)).toEqual(['alipay.trade.pay', 'alipay.trade.query', 'alipay.trade.cancel']);
    expect(methodsOf(platform, paid.out_trade_no)).toEqual(['alipay.trade.pay']);
  });

  test('a code Alipay refuses (40004) changes nothing: 402 payment_code_refused with its sub_code; used again, it is refused again', async () => {
    const prepayId = await newOrder(f, '11.00');
    const code = platform.paymentCode('balance');
    const first = await refusal(f.client.codePay(prepayId, code));
    expect(first).toMatchObject({ http: 402, error: 'payment_code_refused' });
    expect(first.msg).toContain('ACQ.BUYER_BALANCE_NOT_ENOUGH');
    const again = await refusal(f.client.codePay(prepayId, code));
    expect(again).toMatchObject({ http: 402, error: 'payment_code_refused' });
    expect(again.msg).toContain('ACQ.PAYMENT_AUTH_CODE_INVALID');
    // Nothing is left to follow.
    await kit.advance('35s');
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    const cos = await codeOrders(prepayId);
    expect(cos.map((c) => c.state)).toEqual(['failed', 'failed']);
    for (const co of cos) expect(methodsOf(platform, co.out_trade_no)).toEqual(['alipay.trade.pay']);
  });

  test('a code whose answer never comes is cancelled at once (action refund): the money taken goes back, the order stays payable', async () => {
    const prepayId = await newOrder(f, '12.00');
    const answered = refusal(f.client.codePay(prepayId, platform.paymentCode('silent')));
    await waitFor(async () => platform.calls.some((c) => c.method === 'alipay.trade.pay' && c.params.biz_content.includes(prepayId)), 'the pay sent');
    // The call's time limit (PAY_GATEWAY_TIMEOUT) passes on the service's clock.
    await kit.advance('2s');
    expect(await answered).toMatchObject({ http: 503, error: 'channel_unavailable', msg: expect.stringContaining('was cancelled') });
    const [co] = await codeOrders(prepayId);
    expect(co.state).toBe('cancelled');
    expect(platform.trade(co.out_trade_no)).toMatchObject({ status: 'TRADE_CLOSED', cancelled: 'refund', refunds: 1 });
    await kit.settle();
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    expect(methodsOf(platform, co.out_trade_no)).toEqual(['alipay.trade.pay', 'alipay.trade.cancel']);
  });

  test('a cancel Alipay answers `retry_flag: "Y"` is sent again until it is done', async () => {
    const prepayId = await newOrder(f, '13.00');
    expect((await f.client.codePay(prepayId, platform.paymentCode('confirm'))).args.result).toBe('waiting');
    const [co] = await codeOrders(prepayId);
    platform.busyCancels(1);
    await kit.advance('31s');
    expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
    expect(platform.trade(co.out_trade_no)?.status).toBe('WAIT_BUYER_PAY');
    await kit.advance('1s');
    expect(platform.trade(co.out_trade_no)).toMatchObject({ status: 'TRADE_CLOSED', cancelled: 'close' });
    expect(platform.calls.filter((c) => c.method === 'alipay.trade.cancel' && c.biz.out_trade_no === co.out_trade_no)).toHaveLength(2);
  });
});
