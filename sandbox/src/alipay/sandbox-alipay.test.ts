import { clockReading } from '@kit/shared/test-clock';
/**
 * The Alipay stand-in with the kit's Alipay client on one side and alipay-sdk on the other: the
 * client's requests are accepted, its answers and notifications verify under alipay-sdk and the
 * kit, and a trade goes through code, payment, notification, query, refund and refund query; the
 * payer's payment code (`alipay.trade.pay` with `bar_code`, `alipay.trade.cancel`) signed by
 * alipay-sdk and by the kit alike.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { AlipaySdk } from 'alipay-sdk';
import { AlipayClient, type AlipayTransport } from '@kit/server/payments/providers/alipay/client';
import { readNotification, parseNotificationBody, type AlipayNotificationFacts } from '@kit/server/payments/providers/alipay/notification';
import type { AlipayCredentials } from '@kit/server/payments/providers/alipay/settings';
import { issuePaymentCode } from '../sandbox-codes';
import { SandboxAlipay } from './sandbox-alipay';

const APP_ID = '2021000122671080';
const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pkcs8 = (k: KeyObject) => (k.export({ format: 'pem', type: 'pkcs8' }) as string).trim();

let clock = Date.UTC(2024, 5, 30, 17, 30, 0);
const received: AlipayNotificationFacts[] = [];
const sandbox = new SandboxAlipay({
  appId: APP_ID,
  appPublicKey: app.publicKey,
  clock: clockReading(() => clock),
  // The kit's notification endpoint, as a function: verify, read, answer `success`.
  post: async (_url, body) => {
    try {
      received.push(readNotification(credentials, parseNotificationBody(body)));
      return { status: 200, text: 'success' };
    } catch {
      return { status: 400, text: 'fail' };
    }
  },
});
const credentials: AlipayCredentials = {
  appId: APP_ID,
  privateKey: app.privateKey,
  trust: { mode: 'public-key', alipayPublicKey: sandbox.publicKey },
  gatewayUrl: 'http://sandbox.test/sandbox/alipay/gateway.do',
  miniAppId: '2021000122671081',
};
/** What the route does: the URL's query and the form body to the stand-in. */
const raws: string[] = [];
const transport: AlipayTransport = async (url, init) => {
  const text = sandbox.gatewayRequest(new URL(url).search, init.body) ?? '';
  raws.push(text);
  return { status: 200, text };
};
const client = new AlipayClient(credentials, { clock: clockReading(() => clock), transport });
const sdk = new AlipaySdk({ appId: APP_ID, privateKey: pkcs8(app.privateKey), keyType: 'PKCS8', alipayPublicKey: sandbox.publicKeyPem.trim() });

const order = (outTradeNo: string, totalCents = 2500) => ({
  appAuthToken: '202406BBmerchant1',
  outTradeNo,
  totalCents,
  subject: 'Sandbox shop',
  expireAt: clock + 30 * 60_000,
  notifyUrl: 'http://kit.test/pay-notify/alipay',
});

beforeEach(() => {
  received.length = 0;
});

test('a scanned code: no trade before the scan, paid and notified after, refunded once however often asked', async () => {
  const o = order('P_SCAN_1');
  const { qrCode } = await client.precreate(o);
  expect(() => sdk.checkResponseSign(raws.at(-1)!, 'alipay_trade_precreate_response', JSON.parse(raws.at(-1)!).sign, 't')).not.toThrow();
  const ref = { appAuthToken: o.appAuthToken, outTradeNo: o.outTradeNo };
  await expect(client.query(ref)).resolves.toEqual({ outTradeNo: 'P_SCAN_1', state: 'unpaid', exists: false });

  clock += 60_000;
  const trade = await sandbox.scanAndPay(qrCode, 'buyer_open_1');
  expect(received).toEqual([expect.objectContaining({ outTradeNo: 'P_SCAN_1', tradeNo: trade.tradeNo, state: 'paid', amountCents: 2500, paidAt: clock })]);
  expect(sdk.checkNotifySignV2(sandbox.notices.at(-1)!.form)).toBe(true);
  expect(sandbox.notices.at(-1)!.acknowledged).toBe(true);
  await expect(client.query(ref)).resolves.toMatchObject({ state: 'paid', exists: true, tradeNo: trade.tradeNo, amountCents: 2500, buyerId: 'buyer_open_1' });
  await expect(client.close(ref)).rejects.toMatchObject({ failure: 'refused', subCode: 'ACQ.TRADE_STATUS_ERROR', retryable: false });

  await expect(client.refundQuery({ ...ref, outRequestNo: 'R_SCAN_1' })).resolves.toMatchObject({ state: 'not_taken' });
  await expect(client.refund({ ...ref, outRequestNo: 'R_SCAN_1', refundCents: 2500 })).resolves.toMatchObject({ fundChange: true, refundedTotalCents: 2500 });
  await sandbox.idle();
  // The full refund's notification: TRADE_CLOSED, which means refunded.
  expect(received.at(-1)).toMatchObject({ state: 'refunded', refundedCents: 2500, outRequestNo: 'R_SCAN_1' });
  await expect(client.refund({ ...ref, outRequestNo: 'R_SCAN_1', refundCents: 2500 })).resolves.toMatchObject({ fundChange: false });
  await expect(client.refundQuery({ ...ref, outRequestNo: 'R_SCAN_1' })).resolves.toMatchObject({ state: 'refunded', refundCents: 2500 });
  await expect(client.query(ref)).resolves.toMatchObject({ state: 'refunded' });
});

test('the mini-program trade, the app order string and the WAP URL are paid as signed; a closed trade cannot be', async () => {
  const mini = await client.create({ ...order('P_MINI_1', 1), buyerOpenId: 'buyer_open_2' });
  await sandbox.payTradeNo(mini.tradeNo, 'buyer_open_2');
  const app1 = await sandbox.payOrderString(client.appPayOrderString(order('P_APP_1', 199)), 'buyer_open_3');
  const wap1 = await sandbox.payWapUrl(client.wapPayUrl({ ...order('P_WAP_1', 100000), returnUrl: 'http://kit.test/pay/done' }), 'buyer_open_4');
  expect(received.map((n) => [n.outTradeNo, n.state, n.amountCents])).toEqual([
    ['P_MINI_1', 'paid', 1],
    ['P_APP_1', 'paid', 199],
    ['P_WAP_1', 'paid', 100000],
  ]);
  expect([app1.tradeNo, wap1.tradeNo]).toEqual([received[1].tradeNo, received[2].tradeNo]);

  const closed = await client.create({ ...order('P_MINI_2'), buyerOpenId: 'buyer_open_2' });
  await expect(client.close({ appAuthToken: '202406BBmerchant1', outTradeNo: 'P_MINI_2' })).resolves.toEqual({
    outTradeNo: 'P_MINI_2',
    closed: true,
    exists: true,
  });
  await expect(sandbox.payTradeNo(closed.tradeNo, 'buyer_open_2')).rejects.toThrow(/TRADE_CLOSED/);
  // A tampered order string is refused as Alipay's app refuses it.
  await expect(sandbox.payOrderString(client.appPayOrderString(order('P_APP_2', 199)).replace('1.99', '0.01'), 'b')).rejects.toThrow(
    /isv.invalid-signature|签/,
  );
});

test('requests signed by alipay-sdk are accepted; a wrong key, another app, a stale timestamp or no app_auth_token are refused, signed', async () => {
  jest.useFakeTimers({ now: clock + 8 * 3_600_000 + new Date(clock).getTimezoneOffset() * 60_000 });
  let signedBySdk: string;
  try {
    signedBySdk = sdk.sdkExecute('alipay.trade.query', { format: 'JSON', app_auth_token: '202406BBmerchant1', bizContent: { out_trade_no: 'P_SCAN_1' } });
  } finally {
    jest.useRealTimers();
  }
  const answer = sandbox.gatewayRequest('', signedBySdk)!;
  expect(() => sdk.checkResponseSign(answer, 'alipay_trade_query_response', JSON.parse(answer).sign, 't')).not.toThrow();
  expect(JSON.parse(answer).alipay_trade_query_response).toMatchObject({ code: '10000', out_trade_no: 'P_SCAN_1' });

  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ref = { appAuthToken: 'tok', outTradeNo: 'P_SCAN_1' };
  const withKey = new AlipayClient({ ...credentials, privateKey: other.privateKey }, { clock: clockReading(() => clock), transport });
  await expect(withKey.query(ref)).rejects.toMatchObject({ failure: 'refused', subCode: 'isv.invalid-signature' });
  const otherApp = new AlipayClient({ ...credentials, appId: '2021000000000002' }, { clock: clockReading(() => clock), transport });
  await expect(otherApp.query(ref)).rejects.toMatchObject({ subCode: 'isv.invalid-app-id' });
  const slow = new AlipayClient(credentials, { clock: clockReading(() => clock - 8 * 3_600_000), transport });
  await expect(slow.query(ref)).rejects.toMatchObject({ subCode: 'isv.invalid-timestamp' });
  expect(() => client.signed('alipay.trade.query', '', {})).toThrow(/app_auth_token/);
  const noToken = sandbox.gatewayRequest(
    '',
    new URLSearchParams(client.signed('alipay.trade.query', 'x', { out_trade_no: 'P_SCAN_1' })).toString().replace('app_auth_token=x&', ''),
  )!;
  expect(JSON.parse(noToken).alipay_trade_query_response).toMatchObject({ sub_code: expect.stringMatching(/invalid-signature|app-auth-token/) });
});

test('an unanswered code expires with the time sent; an unpaid trade past time_expire is closed', async () => {
  const o = order('P_EXP_1');
  const { qrCode } = await client.precreate({ ...o, expireAt: clock + 5 * 60_000 + 30_000 });
  const mini = await client.create({ ...order('P_EXP_2'), expireAt: clock + 5 * 60_000, buyerOpenId: 'b' });
  clock += 5 * 60_000 + 1000;
  await expect(sandbox.scanAndPay(qrCode, 'b')).rejects.toThrow(/expired/);
  await expect(client.query({ appAuthToken: o.appAuthToken, outTradeNo: 'P_EXP_2' })).resolves.toMatchObject({ state: 'closed' });
  await expect(sandbox.payTradeNo(mini.tradeNo, 'b')).rejects.toThrow(/TRADE_CLOSED/);
});

test("payment codes: alipay.trade.pay (bar_code) and alipay.trade.cancel signed by alipay-sdk are accepted, their answers verify under it; the kit's client alike", async () => {
  /** alipay-sdk's request, stamped at the stand-in's time in China time whatever the local zone. */
  const bySdk = (method: string, bizContent: Record<string, unknown>) => {
    jest.useFakeTimers({ now: clock + 8 * 3_600_000 + new Date(clock).getTimezoneOffset() * 60_000 });
    try {
      return sdk.sdkExecute(method, { format: 'JSON', app_auth_token: '202406BBmerchant1', bizContent }, { bizContentAutoSnakeCase: false });
    } finally {
      jest.useRealTimers();
    }
  };
  const answered = (method: string, request: string) => {
    const text = sandbox.gatewayRequest('', request)!;
    const key = `${method.replace(/\./g, '_')}_response`;
    expect(() => sdk.checkResponseSign(text, key, JSON.parse(text).sign, 't')).not.toThrow();
    return JSON.parse(text)[key] as Record<string, string>;
  };
  const codePay = (outTradeNo: string, authCode: string) =>
    bySdk('alipay.trade.pay', { out_trade_no: outTradeNo, total_amount: '25.00', subject: 'Sandbox shop', scene: 'bar_code', auth_code: authCode });

  // Paid at once; used again, the code is refused.
  const code = issuePaymentCode('28', 'pay');
  expect(answered('alipay.trade.pay', codePay('P_CODE_1', code))).toMatchObject({ code: '10000', out_trade_no: 'P_CODE_1', total_amount: '25.00' });
  expect(answered('alipay.trade.pay', codePay('P_CODE_2', code))).toMatchObject({ code: '40004', sub_code: 'ACQ.PAYMENT_AUTH_CODE_INVALID' });
  // The payer confirming (10003); cancelled, the trade is closed (retry_flag N), and the cancel refunds a paid one.
  expect(answered('alipay.trade.pay', codePay('P_CODE_3', issuePaymentCode('28', 'never')))).toMatchObject({ code: '10003', out_trade_no: 'P_CODE_3' });
  expect(answered('alipay.trade.cancel', bySdk('alipay.trade.cancel', { out_trade_no: 'P_CODE_3' }))).toMatchObject({
    code: '10000',
    retry_flag: 'N',
    action: 'close',
  });
  expect(answered('alipay.trade.cancel', bySdk('alipay.trade.cancel', { out_trade_no: 'P_CODE_1' }))).toMatchObject({ retry_flag: 'N', action: 'refund' });

  // The kit's client through the same stand-in: waiting, paid, refused, and its cancels.
  const kitOrder = (outTradeNo: string, behaviour: 'pay' | 'confirm' | 'balance') => ({
    ...order(outTradeNo),
    authCode: issuePaymentCode('28', behaviour),
    deviceId: 'POS-01',
  });
  await expect(client.tradePay(kitOrder('P_CODE_4', 'confirm'))).resolves.toEqual({ state: 'waiting' });
  await expect(client.tradePay(kitOrder('P_CODE_5', 'pay'))).resolves.toMatchObject({ state: 'paid', amountCents: 2500 });
  await expect(client.tradePay(kitOrder('P_CODE_6', 'balance'))).rejects.toMatchObject({ failure: 'refused', subCode: 'ACQ.BUYER_BALANCE_NOT_ENOUGH' });
  for (const outTradeNo of ['P_CODE_4', 'P_CODE_5']) {
    await expect(client.cancel({ appAuthToken: '202406BBmerchant1', outTradeNo })).resolves.toEqual({ again: false });
    expect(() => sdk.checkResponseSign(raws.at(-1)!, 'alipay_trade_cancel_response', JSON.parse(raws.at(-1)!).sign, 't')).not.toThrow();
  }
  // The paid one's money went back to the payer.
  await expect(client.query({ appAuthToken: '202406BBmerchant1', outTradeNo: 'P_CODE_5' })).resolves.toMatchObject({ state: 'refunded' });
});
