import { clockReading } from '@kit/shared/test-clock';
/**
 * The kit's Alipay signing and verification refereed by the official Node SDK (`alipay-sdk`): the
 * SDK verifies what the kit signs, and the kit accepts what verifies under the SDK's rules and
 * refuses what does not. Public-key mode here; certificate mode in cert-mode.test.ts.
 */
import { TestClock } from '@kit/shared/test-clock';
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { AlipaySdk } from 'alipay-sdk';
import { AlipayClient, type AlipayTransport } from './client';
import { AlipayError } from './errors';
import { readNotification, parseNotificationBody, AlipayNotificationError } from './notification';
import { signNotification, type Params } from './sign';
import { alipayTime } from './time';
import type { AlipayCredentials } from './settings';

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const app = pair();
const alipay = pair();
const pem = (k: KeyObject, type: 'pkcs8' | 'spki') => (k.export({ format: 'pem', type }) as string).trim();
const APP_ID = '2021000122671080';
const credentials: AlipayCredentials = {
  appId: APP_ID,
  privateKey: app.privateKey,
  trust: { mode: 'public-key', alipayPublicKey: alipay.publicKey },
  gatewayUrl: 'https://openapi.example.test/gateway.do',
  miniAppId: '2021000122671081',
};

/** The SDK as Alipay's gateway sees the kit: it checks with the application's public key. */
const sdkAsGateway = new AlipaySdk({
  appId: APP_ID,
  privateKey: pem(alipay.privateKey, 'pkcs8'),
  keyType: 'PKCS8',
  alipayPublicKey: pem(app.publicKey, 'spki'),
});
/** The SDK as an application: it checks answers and notifications with Alipay's public key. */
const sdkAsApp = new AlipaySdk({ appId: APP_ID, privateKey: pem(app.privateKey, 'pkcs8'), keyType: 'PKCS8', alipayPublicKey: pem(alipay.publicKey, 'spki') });
/** The SDK signing with Alipay's key (what Alipay would sign). */
const sdkAsAlipay = new AlipaySdk({
  appId: APP_ID,
  privateKey: pem(alipay.privateKey, 'pkcs8'),
  keyType: 'PKCS8',
  alipayPublicKey: pem(app.publicKey, 'spki'),
});

const NOW = Date.UTC(2024, 5, 30, 17, 30, 5); // 2024-07-01 01:30:05 in China
const order = {
  appAuthToken: '202406BBa1b2c3d4e5f6',
  outTradeNo: 'P_20240701_0001',
  totalCents: 1234,
  subject: '小店 Coffee',
  expireAt: NOW + 15 * 60_000 + 999,
  notifyUrl: 'https://kit.example.test/pay-notify/alipay',
};

/** Alipay writes its answers' JSON with `/` escaped as `\/`, and signs that text. */
function alipayAnswer(method: string, node: object, key: KeyObject = alipay.privateKey, extra = ''): string {
  const nodeText = JSON.stringify(node).replace(/\//g, '\\/');
  const sign = createSign('RSA-SHA256').update(nodeText, 'utf8').sign(key, 'base64');
  return `{"${method.replace(/\./g, '_')}_response":${nodeText},"sign":"${sign}"${extra}}`;
}

/** A transport that records the request and answers `raw`. */
function answering(raw: string | ((params: Params) => string), status = 200) {
  const seen: Params[] = [];
  const transport: AlipayTransport = async (url, init) => {
    const params: Params = Object.fromEntries(new URL(url).searchParams);
    for (const [k, v] of new URLSearchParams(init.body)) params[k] = v;
    seen.push(params);
    return { status, text: typeof raw === 'string' ? raw : raw(params) };
  };
  return { seen, transport };
}

const parseQuery = (q: string): Params => Object.fromEntries(q.split('&').map((kv) => kv.split('=').map(decodeURIComponent) as [string, string]));

describe('requests the kit signs verify under alipay-sdk', () => {
  test('a call: common parameters, app_auth_token, China timestamp, notify_url, biz_content; altered, it fails', async () => {
    const answer = alipayAnswer('alipay.trade.precreate', {
      code: '10000',
      msg: 'Success',
      out_trade_no: order.outTradeNo,
      qr_code: 'https://qr.alipay.com/bax00001',
    });
    const { seen, transport } = answering(answer);
    const client = new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport });
    await expect(client.precreate(order)).resolves.toEqual({ outTradeNo: order.outTradeNo, qrCode: 'https://qr.alipay.com/bax00001' });
    const req = seen[0];
    expect(req).toMatchObject({
      app_id: APP_ID,
      method: 'alipay.trade.precreate',
      format: 'JSON',
      charset: 'utf-8',
      sign_type: 'RSA2',
      version: '1.0',
      timestamp: '2024-07-01 01:30:05',
      app_auth_token: order.appAuthToken,
      notify_url: order.notifyUrl,
    });
    expect(JSON.parse(req.biz_content)).toEqual({ out_trade_no: order.outTradeNo, total_amount: '12.34', subject: '小店 Coffee', timeout_express: '15m' });
    expect(sdkAsGateway.checkNotifySignV2(req)).toBe(true);
    expect(sdkAsGateway.checkNotifySignV2({ ...req, biz_content: req.biz_content.replace('12.34', '12.35') })).toBe(false);
    expect(sdkAsGateway.checkNotifySignV2({ ...req, app_auth_token: 'another' })).toBe(false);
  });

  test("the app order string is the SDK's own sdkExecute, byte for byte in content, in China time whatever the local zone", () => {
    const client = new AlipayClient(credentials, { clock: clockReading(() => NOW) });
    const kit = parseQuery(client.appPayOrderString(order));
    // The SDK stamps the host's local time: make local time read China time at NOW.
    const localOffsetMs = -new Date(NOW).getTimezoneOffset() * 60_000;
    jest.useFakeTimers({ now: NOW + 8 * 3_600_000 - localOffsetMs });
    let sdk: Params;
    try {
      const biz = JSON.parse(kit.biz_content) as Record<string, unknown>;
      sdk = parseQuery(
        sdkAsApp.sdkExecute(
          'alipay.trade.app.pay',
          { format: 'JSON', notify_url: order.notifyUrl, app_auth_token: order.appAuthToken, bizContent: biz },
          { bizContentAutoSnakeCase: false },
        ),
      );
    } finally {
      jest.useRealTimers();
    }
    expect(kit.timestamp).toBe('2024-07-01 01:30:05');
    expect(JSON.parse(kit.biz_content)).toEqual({
      out_trade_no: order.outTradeNo,
      total_amount: '12.34',
      subject: '小店 Coffee',
      time_expire: '2024-07-01 01:45:05',
      product_code: 'QUICK_MSECURITY_PAY',
    });
    expect(kit).toEqual(sdk);
  });

  test('the WAP URL: a GET on the gateway whose parameters verify, with return_url and quit_url', () => {
    const client = new AlipayClient(credentials, { clock: clockReading(() => NOW) });
    const url = new URL(client.wapPayUrl({ ...order, returnUrl: 'https://kit.example.test/pay/done?x=1&y=2' }));
    expect(`${url.origin}${url.pathname}`).toBe(credentials.gatewayUrl);
    const params = Object.fromEntries(url.searchParams);
    expect(params).toMatchObject({ method: 'alipay.trade.wap.pay', return_url: 'https://kit.example.test/pay/done?x=1&y=2', notify_url: order.notifyUrl });
    expect(JSON.parse(params.biz_content)).toMatchObject({ product_code: 'QUICK_WAP_WAY', quit_url: 'https://kit.example.test/pay/done?x=1&y=2' });
    expect(sdkAsGateway.checkNotifySignV2(params)).toBe(true);
  });

  test("alipay.system.oauth.token is the mini-program's own call: its app id, no app_auth_token; open_id, else user_id; a refused code names its sub_code", async () => {
    const tokenNode = (payer: object) => ({ access_token: 'authusrB1', expires_in: 1296000, refresh_token: 'authusrB2', re_expires_in: 2592000, ...payer });
    const { seen, transport } = answering(alipayAnswer('alipay.system.oauth.token', tokenNode({ open_id: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5' })));
    await expect(
      new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport }).oauthToken('4b203fe6c11548bcabd8da5bb087a83b'),
    ).resolves.toEqual({
      openId: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5',
    });
    expect(seen[0]).toMatchObject({
      app_id: '2021000122671081',
      method: 'alipay.system.oauth.token',
      grant_type: 'authorization_code',
      code: '4b203fe6c11548bcabd8da5bb087a83b',
      timestamp: '2024-07-01 01:30:05',
    });
    expect(seen[0].app_auth_token).toBeUndefined();
    expect(seen[0].biz_content).toBeUndefined();
    // Checked by alipay-sdk as the mini-program's gateway would (the same application key).
    const sdkAsMiniGateway = new AlipaySdk({
      appId: '2021000122671081',
      privateKey: pem(alipay.privateKey, 'pkcs8'),
      keyType: 'PKCS8',
      alipayPublicKey: pem(app.publicKey, 'spki'),
    });
    expect(sdkAsMiniGateway.checkNotifySignV2(seen[0])).toBe(true);
    expect(sdkAsMiniGateway.checkNotifySignV2({ ...seen[0], code: 'another' })).toBe(false);

    const older = answering(alipayAnswer('alipay.system.oauth.token', tokenNode({ user_id: '2088102150477652' })));
    await expect(
      new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport: older.transport }).oauthToken('c'),
    ).resolves.toEqual({
      openId: '2088102150477652',
    });

    // A refused code comes in `error_response`, signed over that node.
    const errorNode = JSON.stringify({ code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.code-invalid', sub_msg: '授权码code无效' });
    const signed = `{"error_response":${errorNode},"sign":"${createSign('RSA-SHA256').update(errorNode, 'utf8').sign(alipay.privateKey, 'base64')}"}`;
    const refused = new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport: answering(signed).transport });
    await expect(refused.oauthToken('used')).rejects.toMatchObject({ failure: 'refused', subCode: 'isv.code-invalid', subMsg: '授权码code无效' });
    // A token node that names no payer, or one signed by someone else, is not used.
    const nobody = answering(alipayAnswer('alipay.system.oauth.token', tokenNode({})));
    await expect(
      new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport: nobody.transport }).oauthToken('c'),
    ).rejects.toMatchObject({ failure: 'format' });
    const forged = answering(alipayAnswer('alipay.system.oauth.token', tokenNode({ open_id: 'x' }), pair().privateKey));
    await expect(
      new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport: forged.transport }).oauthToken('c'),
    ).rejects.toMatchObject({
      failure: 'signature',
    });
    // Without ALIPAY_MINI_APP_ID the codes' application is unknown: nothing is sent.
    const none = answering('{}');
    await expect(new AlipayClient({ ...credentials, miniAppId: undefined }, { transport: none.transport }).oauthToken('c')).rejects.toThrow(
      /ALIPAY_MINI_APP_ID/,
    );
    expect(none.seen).toEqual([]);
  });

  test('alipay.trade.create carries product_code JSAPI_PAY, op_app_id and buyer_open_id', async () => {
    const { seen, transport } = answering(
      alipayAnswer('alipay.trade.create', { code: '10000', msg: 'Success', out_trade_no: order.outTradeNo, trade_no: '2024070122001400000001' }),
    );
    const client = new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport });
    await expect(client.create({ ...order, buyerOpenId: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5' })).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      tradeNo: '2024070122001400000001',
    });
    expect(JSON.parse(seen[0].biz_content)).toMatchObject({
      product_code: 'JSAPI_PAY',
      op_app_id: '2021000122671081',
      buyer_open_id: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5',
      time_expire: '2024-07-01 01:45:05',
    });
    expect(sdkAsGateway.checkNotifySignV2(seen[0])).toBe(true);
  });
});

describe('answers: verified over the response node as received, never used when the sign fails', () => {
  const paid = {
    code: '10000',
    msg: 'Success',
    trade_no: '2024070122001400000001',
    out_trade_no: order.outTradeNo,
    buyer_logon_id: 'a**@example.com',
    trade_status: 'TRADE_SUCCESS',
    total_amount: '12.34',
    buyer_pay_amount: '12.34',
    send_pay_date: '2024-07-01 01:31:00',
    buyer_open_id: '074a1CcTG1Lelx',
    // A URL: Alipay escapes its slashes, and signs the escaped text.
    fund_bill_list: [{ amount: '12.34', fund_channel: 'ALIPAYACCOUNT' }],
    memo: 'see https://example.test/a/b',
  };

  test('an answer alipay-sdk accepts gives the kit facts; the same altered, both refuse', async () => {
    const raw = alipayAnswer('alipay.trade.query', paid);
    expect(raw).toContain('https:\\/\\/example.test\\/a\\/b');
    const sign = JSON.parse(raw).sign as string;
    expect(() => sdkAsApp.checkResponseSign(raw, 'alipay_trade_query_response', sign, 't')).not.toThrow();
    const client = new AlipayClient(credentials, { transport: answering(raw).transport });
    await expect(client.query({ appAuthToken: order.appAuthToken, outTradeNo: order.outTradeNo })).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      state: 'paid',
      exists: true,
      tradeNo: '2024070122001400000001',
      amountCents: 1234,
      paidAt: Date.UTC(2024, 5, 30, 17, 31, 0),
      buyerId: '074a1CcTG1Lelx',
    });

    const altered = raw.replace('"total_amount":"12.34"', '"total_amount":"0.01"');
    expect(() => sdkAsApp.checkResponseSign(altered, 'alipay_trade_query_response', sign, 't')).toThrow(/验签失败/);
    const refused = new AlipayClient(credentials, { transport: answering(altered).transport }).query({ appAuthToken: 'x', outTradeNo: order.outTradeNo });
    await expect(refused).rejects.toMatchObject({ failure: 'signature', retryable: false });
  });

  test('the same answer re-serialised (slashes unescaped) does not verify: the raw text is what counts', async () => {
    const raw = alipayAnswer('alipay.trade.query', paid);
    const reserialised = JSON.stringify(JSON.parse(raw));
    expect(reserialised).not.toBe(raw);
    const client = new AlipayClient(credentials, { transport: answering(reserialised).transport });
    await expect(client.query({ appAuthToken: 'x', outTradeNo: order.outTradeNo })).rejects.toMatchObject({ failure: 'signature' });
  });

  test('an answer signed with another key, or an unsigned success, is refused; an unsigned refusal naming its sub_code is read for its codes only', async () => {
    const other = pair();
    const forged = alipayAnswer('alipay.trade.query', paid, other.privateKey);
    await expect(
      new AlipayClient(credentials, { transport: answering(forged).transport }).query({ appAuthToken: 'x', outTradeNo: order.outTradeNo }),
    ).rejects.toMatchObject({
      failure: 'signature',
    });
    const query = (raw: string) =>
      new AlipayClient(credentials, { transport: answering(raw).transport })
        .query({ appAuthToken: 'x', outTradeNo: order.outTradeNo })
        .catch((x: unknown) => x as AlipayError);
    // The gateway's own refusal, unsigned, as alipay-sdk-java's checkResponseSign lets through (not a success: it names a sub_code).
    const gateway = await query('{"error_response":{"code":"40002","msg":"Invalid Arguments","sub_code":"isv.invalid-app-id","sub_msg":"无效的AppID参数"}}');
    expect(gateway).toBeInstanceOf(AlipayError);
    expect(gateway).toMatchObject({ failure: 'refused', unsigned: true, retryable: false, subCode: 'isv.invalid-app-id', subMsg: '无效的AppID参数' });
    expect((gateway as AlipayError).message).toMatch(/unsigned.*isv.invalid-app-id/);
    // An error node without sign: its codes say whether to ask again; an unsigned "no such trade" is never read as one.
    const busy = await query(`{"alipay_trade_query_response":{"code":"40004","msg":"Business Failed","sub_code":"ACQ.SYSTEM_ERROR","sub_msg":"系统错误"}}`);
    expect(busy).toMatchObject({ failure: 'refused', unsigned: true, retryable: true, subCode: 'ACQ.SYSTEM_ERROR' });
    const none = await query(
      `{"alipay_trade_query_response":{"code":"40004","msg":"Business Failed","sub_code":"ACQ.TRADE_NOT_EXIST","sub_msg":"交易不存在"}}`,
    );
    expect(none).toMatchObject({ failure: 'refused', unsigned: true, subCode: 'ACQ.TRADE_NOT_EXIST' });
    const close = await new AlipayClient(credentials, {
      transport: answering(`{"alipay_trade_close_response":{"code":"40004","msg":"Business Failed","sub_code":"ACQ.TRADE_NOT_EXIST","sub_msg":"交易不存在"}}`)
        .transport,
    })
      .close({ appAuthToken: 'x', outTradeNo: order.outTradeNo })
      .catch((x: unknown) => x);
    expect(close).toMatchObject({ failure: 'refused', unsigned: true });
    // Signed, the same refusal is what it says: no trade yet, ask again.
    const signed = alipayAnswer('alipay.trade.query', { code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST', sub_msg: '交易不存在' });
    await expect(
      new AlipayClient(credentials, { transport: answering(signed).transport }).query({ appAuthToken: 'x', outTradeNo: order.outTradeNo }),
    ).resolves.toEqual({ outTradeNo: order.outTradeNo, state: 'unpaid', exists: false });
    // Unsigned and no sub_code (a success, to the SDK): never used.
    expect(await query(`{"alipay_trade_query_response":${JSON.stringify(paid)}}`)).toMatchObject({ failure: 'signature' });
    expect(await query('{"error_response":{"code":"40004","msg":"Business Failed"}}')).toMatchObject({ failure: 'signature', details: {} });
  });

  test('business errors carry sub_code/sub_msg; system errors and HTTP/network failures are retryable', async () => {
    const err = (sub: string) => alipayAnswer('alipay.trade.refund', { code: '40004', msg: 'Business Failed', sub_code: sub, sub_msg: '说明' });
    const refund = (raw: string, status = 200) =>
      new AlipayClient(credentials, { transport: answering(raw, status).transport })
        .refund({ appAuthToken: 'x', outTradeNo: order.outTradeNo, outRequestNo: 'R_1', refundCents: 1234 })
        .then(
          () => {
            throw new Error('expected a refusal');
          },
          (x: unknown) => x as AlipayError,
        );
    const notEnough = await refund(err('ACQ.SELLER_BALANCE_NOT_ENOUGH'));
    expect(notEnough).toMatchObject({ failure: 'refused', retryable: false, subCode: 'ACQ.SELLER_BALANCE_NOT_ENOUGH', subMsg: '说明' });
    expect(notEnough.message).toContain('ACQ.SELLER_BALANCE_NOT_ENOUGH: 说明');
    expect(await refund(err('ACQ.SYSTEM_ERROR'))).toMatchObject({ retryable: true });
    expect(await refund(err('aop.ACQ.SYSTEM_ERROR'))).toMatchObject({ retryable: true });
    expect(await refund('<html>bad gateway</html>', 502)).toMatchObject({ failure: 'http', retryable: true, details: { httpStatus: 502 } });
    expect(await refund('<html>ok</html>')).toMatchObject({ failure: 'format', retryable: true });
    const down = new AlipayClient(credentials, {
      transport: async () => {
        throw new Error('ECONNREFUSED');
      },
    });
    await expect(down.close({ appAuthToken: 'x', outTradeNo: order.outTradeNo })).rejects.toMatchObject({ failure: 'network', retryable: true });
  });

  test('ACQ.TRADE_NOT_EXIST: unpaid and ask again on query, nothing closed on close', async () => {
    const notExist = (m: string) => alipayAnswer(m, { code: '40004', msg: 'Business Failed', sub_code: 'ACQ.TRADE_NOT_EXIST', sub_msg: '交易不存在' });
    const ref = { appAuthToken: 'x', outTradeNo: order.outTradeNo };
    await expect(new AlipayClient(credentials, { transport: answering(notExist('alipay.trade.query')).transport }).query(ref)).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      state: 'unpaid',
      exists: false,
    });
    await expect(new AlipayClient(credentials, { transport: answering(notExist('alipay.trade.close')).transport }).close(ref)).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      closed: false,
      exists: false,
    });
  });

  test('refunds: a repeated out_request_no (fund_change N) is no failure; the refund query says refunded only with refund_status, not taken without', async () => {
    const ref = { appAuthToken: 'x', outTradeNo: order.outTradeNo, outRequestNo: 'R_1' };
    const repeated = alipayAnswer('alipay.trade.refund', {
      code: '10000',
      msg: 'Success',
      trade_no: 'T1',
      out_trade_no: order.outTradeNo,
      fund_change: 'N',
      refund_fee: '12.34',
    });
    await expect(new AlipayClient(credentials, { transport: answering(repeated).transport }).refund({ ...ref, refundCents: 1234 })).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      outRequestNo: 'R_1',
      tradeNo: 'T1',
      fundChange: false,
      refundedTotalCents: 1234,
    });
    // Nothing of the refund: Alipay never received it.
    const unknown = alipayAnswer('alipay.trade.fastpay.refund.query', { code: '10000', msg: 'Success', out_trade_no: order.outTradeNo });
    await expect(new AlipayClient(credentials, { transport: answering(unknown).transport }).refundQuery(ref)).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      outRequestNo: 'R_1',
      state: 'not_taken',
    });
    // The refund named, without refund_status: Alipay did not take it either (not received, or failed), send it again.
    const named = alipayAnswer('alipay.trade.fastpay.refund.query', {
      code: '10000',
      msg: 'Success',
      out_trade_no: order.outTradeNo,
      out_request_no: 'R_1',
      refund_amount: '12.34',
    });
    await expect(new AlipayClient(credentials, { transport: answering(named).transport }).refundQuery(ref)).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      outRequestNo: 'R_1',
      state: 'not_taken',
    });
    const done = alipayAnswer('alipay.trade.fastpay.refund.query', {
      code: '10000',
      msg: 'Success',
      out_trade_no: order.outTradeNo,
      out_request_no: 'R_1',
      refund_amount: '12.34',
      refund_status: 'REFUND_SUCCESS',
      gmt_refund_pay: '2024-07-01 09:00:00',
    });
    await expect(new AlipayClient(credentials, { transport: answering(done).transport }).refundQuery(ref)).resolves.toEqual({
      outTradeNo: order.outTradeNo,
      outRequestNo: 'R_1',
      state: 'refunded',
      refundCents: 1234,
      refundedAt: Date.UTC(2024, 6, 1, 1, 0, 0),
    });
  });

  test('the daily bill link, and no bill yet', async () => {
    const { seen, transport } = answering(
      alipayAnswer('alipay.data.dataservice.bill.downloadurl.query', {
        code: '10000',
        msg: 'Success',
        bill_download_url: 'https://dwbillcenter.alipay.com/downloadBillFile.resource?bizType=X&fileId=Y',
      }),
    );
    await expect(new AlipayClient(credentials, { transport }).billDownloadUrl('tok', '2024-06-30')).resolves.toEqual({
      ready: true,
      url: 'https://dwbillcenter.alipay.com/downloadBillFile.resource?bizType=X&fileId=Y',
    });
    expect(JSON.parse(seen[0].biz_content)).toEqual({ bill_type: 'trade', bill_date: '2024-06-30' });
    const none = alipayAnswer('alipay.data.dataservice.bill.downloadurl.query', {
      code: '40004',
      msg: 'Business Failed',
      sub_code: 'isp.bill_not_exist',
      sub_msg: '账单不存在',
    });
    await expect(new AlipayClient(credentials, { transport: answering(none).transport }).billDownloadUrl('tok', '2024-06-30')).resolves.toEqual({
      ready: false,
    });
  });
});

describe("the payer's payment code: alipay.trade.pay (bar_code) and alipay.trade.cancel", () => {
  const codeOrder = { ...order, authCode: '283456789012345678', deviceId: 'POS-01' };
  const at = (transport: AlipayTransport) => new AlipayClient(credentials, { clock: new TestClock({ start: NOW, frozen: true }), transport });
  /** alipay-sdk's own request for the same call (its sdkExecute), stamped at NOW in China time whatever the local zone. */
  const sdkRequest = (method: string, params: Record<string, unknown>): Params => {
    const localOffsetMs = -new Date(NOW).getTimezoneOffset() * 60_000;
    jest.useFakeTimers({ now: NOW + 8 * 3_600_000 - localOffsetMs });
    try {
      return parseQuery(sdkAsApp.sdkExecute(method, { format: 'JSON', ...params }, { bizContentAutoSnakeCase: false }));
    } finally {
      jest.useRealTimers();
    }
  };
  const paidNode = {
    code: '10000',
    msg: 'Success',
    trade_no: '2024070122001400000002',
    out_trade_no: order.outTradeNo,
    buyer_logon_id: 'a**@example.com',
    total_amount: '12.34',
    receipt_amount: '12.34',
    gmt_payment: '2024-07-01 01:30:07',
    buyer_open_id: '074a1CcTG1Lelx',
    fund_bill_list: [{ fund_channel: 'ALIPAYACCOUNT', amount: '12.34' }],
  };
  const pay = (raw: string) =>
    at(answering(raw).transport)
      .tradePay(codeOrder)
      .catch((e: unknown) => e as AlipayError);

  test('the request: scene bar_code, auth_code, terminal_id, notify_url; alipay-sdk verifies it and signs the same parameters itself', async () => {
    const { seen, transport } = answering(alipayAnswer('alipay.trade.pay', paidNode));
    await at(transport).tradePay(codeOrder);
    const req = seen[0];
    expect(req).toMatchObject({
      method: 'alipay.trade.pay',
      app_auth_token: order.appAuthToken,
      notify_url: order.notifyUrl,
      timestamp: '2024-07-01 01:30:05',
    });
    const biz = JSON.parse(req.biz_content) as Record<string, unknown>;
    expect(biz).toEqual({
      out_trade_no: order.outTradeNo,
      total_amount: '12.34',
      subject: '小店 Coffee',
      time_expire: '2024-07-01 01:45:05',
      scene: 'bar_code',
      auth_code: codeOrder.authCode,
      terminal_id: 'POS-01',
    });
    expect(sdkAsGateway.checkNotifySignV2(req)).toBe(true);
    expect(sdkAsGateway.checkNotifySignV2({ ...req, biz_content: req.biz_content.replace(codeOrder.authCode, '283456789012345679') })).toBe(false);
    expect(req).toEqual(sdkRequest('alipay.trade.pay', { notify_url: order.notifyUrl, app_auth_token: order.appAuthToken, bizContent: biz }));
  });

  test('10000 paid and a signed 10003 (the payer confirming) verify under alipay-sdk and read as paid and waiting; altered, both refuse them', async () => {
    const paid = alipayAnswer('alipay.trade.pay', paidNode);
    expect(() => sdkAsApp.checkResponseSign(paid, 'alipay_trade_pay_response', JSON.parse(paid).sign, 't')).not.toThrow();
    expect(await pay(paid)).toEqual({ state: 'paid', tradeNo: paidNode.trade_no, paidAt: Date.UTC(2024, 5, 30, 17, 30, 7), amountCents: 1234 });

    const waiting = alipayAnswer('alipay.trade.pay', {
      code: '10003',
      msg: ' order success pay inprocess',
      trade_no: paidNode.trade_no,
      out_trade_no: order.outTradeNo,
    });
    expect(() => sdkAsApp.checkResponseSign(waiting, 'alipay_trade_pay_response', JSON.parse(waiting).sign, 't')).not.toThrow();
    expect(await pay(waiting)).toEqual({ state: 'waiting' });

    const forged = waiting.replace('"10003"', '"10000"');
    expect(() => sdkAsApp.checkResponseSign(forged, 'alipay_trade_pay_response', JSON.parse(forged).sign, 't')).toThrow(/验签失败/);
    expect(await pay(forged)).toMatchObject({ failure: 'signature' });
    // Unsigned, a 10003 is not taken for the payer confirming (it names no sub_code: a success to the SDK, unused here).
    expect(await pay(`{"alipay_trade_pay_response":${JSON.stringify({ code: '10003', msg: 'inprocess', out_trade_no: order.outTradeNo })}}`)).toMatchObject({
      failure: 'signature',
    });
  });

  test('40004 refuses the code (its sub_code read); 20000 and ACQ.SYSTEM_ERROR say nothing of the money (retryable)', async () => {
    const refused = (subCode: string, code = '40004') =>
      pay(
        alipayAnswer('alipay.trade.pay', {
          code,
          msg: code === '40004' ? 'Business Failed' : 'Service Currently Unavailable',
          sub_code: subCode,
          sub_msg: '说明',
        }),
      );
    for (const subCode of ['ACQ.PAYMENT_AUTH_CODE_INVALID', 'ACQ.BUYER_BALANCE_NOT_ENOUGH']) {
      const raw = alipayAnswer('alipay.trade.pay', { code: '40004', msg: 'Business Failed', sub_code: subCode, sub_msg: '说明' });
      expect(() => sdkAsApp.checkResponseSign(raw, 'alipay_trade_pay_response', JSON.parse(raw).sign, 't')).not.toThrow();
      expect(await refused(subCode)).toMatchObject({ failure: 'refused', retryable: false, subCode });
    }
    expect(await refused('ACQ.SYSTEM_ERROR')).toMatchObject({ failure: 'refused', retryable: true });
    expect(await refused('isp.unknow-error', '20000')).toMatchObject({ retryable: true });
  });

  test('alipay.trade.cancel: the request verifies under alipay-sdk and is its own; retry_flag Y asks again, N is done, both answers verified', async () => {
    const cancelled = (retry: 'Y' | 'N') =>
      alipayAnswer('alipay.trade.cancel', {
        code: '10000',
        msg: 'Success',
        trade_no: paidNode.trade_no,
        out_trade_no: order.outTradeNo,
        retry_flag: retry,
        action: retry === 'Y' ? '' : 'refund',
      });
    const ref = { appAuthToken: order.appAuthToken, outTradeNo: order.outTradeNo };
    const again = answering(cancelled('Y'));
    await expect(at(again.transport).cancel(ref)).resolves.toEqual({ again: true });
    const req = again.seen[0];
    expect(req).toMatchObject({ method: 'alipay.trade.cancel', app_auth_token: order.appAuthToken });
    expect(req.notify_url).toBeUndefined();
    expect(JSON.parse(req.biz_content)).toEqual({ out_trade_no: order.outTradeNo });
    expect(sdkAsGateway.checkNotifySignV2(req)).toBe(true);
    expect(req).toEqual(sdkRequest('alipay.trade.cancel', { app_auth_token: order.appAuthToken, bizContent: { out_trade_no: order.outTradeNo } }));
    for (const raw of [cancelled('Y'), cancelled('N')])
      expect(() => sdkAsApp.checkResponseSign(raw, 'alipay_trade_cancel_response', JSON.parse(raw).sign, 't')).not.toThrow();
    await expect(at(answering(cancelled('N')).transport).cancel(ref)).resolves.toEqual({ again: false });
    await expect(at(answering(cancelled('N').replace('"retry_flag":"N"', '"retry_flag":"Y"')).transport).cancel(ref)).rejects.toMatchObject({
      failure: 'signature',
    });
  });
});

describe('notifications', () => {
  const fields: Params = {
    notify_time: '2024-07-01 01:31:01',
    notify_type: 'trade_status_sync',
    notify_id: '2024070100222013101000000001',
    app_id: APP_ID,
    auth_app_id: '2021000000000099',
    charset: 'utf-8',
    version: '1.0',
    trade_no: '2024070122001400000001',
    out_trade_no: order.outTradeNo,
    trade_status: 'TRADE_SUCCESS',
    total_amount: '12.34',
    receipt_amount: '12.34',
    gmt_create: '2024-07-01 01:30:40',
    gmt_payment: '2024-07-01 01:31:00',
    subject: '小店 Coffee',
    buyer_open_id: '074a1CcTG1Lelx',
  };

  test('signed as Alipay signs them (sign_type not covered): alipay-sdk and the kit accept; altered, both refuse', () => {
    const form = signNotification(fields, alipay.privateKey);
    expect(sdkAsApp.checkNotifySignV2(form)).toBe(true);
    const body = new URLSearchParams(form).toString();
    expect(readNotification(credentials, parseNotificationBody(body))).toEqual({
      notifyId: fields.notify_id,
      merchantAppId: '2021000000000099',
      outTradeNo: order.outTradeNo,
      tradeNo: fields.trade_no,
      state: 'paid',
      amountCents: 1234,
      paidAt: Date.UTC(2024, 5, 30, 17, 31, 0),
      buyerId: '074a1CcTG1Lelx',
    });
    const altered = { ...form, total_amount: '0.01' };
    expect(sdkAsApp.checkNotifySignV2(altered)).toBe(false);
    expect(() => readNotification(credentials, altered)).toThrow(AlipayNotificationError);
    expect(() => readNotification(credentials, { ...form, sign: undefined as unknown as string })).toThrow(/unsigned/);
  });

  test('a form signed by alipay-sdk over its fields with sign_type (rsaCheckV2) is accepted; one for another app is not', () => {
    const signed = parseQuery(sdkAsAlipay.sdkExecute('notify', { ...fields }, { bizContentAutoSnakeCase: false }));
    expect(signed.sign_type).toBe('RSA2');
    expect(readNotification(credentials, signed)).toMatchObject({ state: 'paid', amountCents: 1234 });
    const foreign = signNotification({ ...fields, app_id: '2021000000000001' }, alipay.privateKey);
    expect(() => readNotification(credentials, foreign)).toThrow(/not ALIPAY_APP_ID/);
  });

  test('TRADE_CLOSED after a full refund means refunded, never a cancel; closed unpaid is closed', () => {
    const refunded = signNotification(
      { ...fields, trade_status: 'TRADE_CLOSED', refund_fee: '12.34', gmt_refund: '2024-07-01 09:00:00.123', out_biz_no: 'R_1' },
      alipay.privateKey,
    );
    expect(readNotification(credentials, refunded)).toMatchObject({ state: 'refunded', refundedCents: 1234, outRequestNo: 'R_1' });
    const { gmt_payment: _p, buyer_open_id: _b, ...unpaid } = fields;
    expect(readNotification(credentials, signNotification({ ...unpaid, trade_status: 'TRADE_CLOSED' }, alipay.privateKey))).toMatchObject({ state: 'closed' });
  });
});

describe('China time', () => {
  test('alipayTime is UTC+8 whatever TZ the process runs in', () => {
    const script = `const { alipayTime } = require(${JSON.stringify(path.join(__dirname, 'time.ts'))}); process.stdout.write(alipayTime(${NOW}) + '|' + new Date(${NOW}).getHours());`;
    const run = (tz: string) =>
      execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { env: { ...process.env, TZ: tz }, encoding: 'utf8' }).split('|');
    const [la, laHour] = run('America/Los_Angeles');
    const [sh, shHour] = run('Asia/Shanghai');
    const [kiri] = run('Pacific/Kiritimati');
    expect(laHour).not.toBe(shHour); // the zones really differed
    expect([la, sh, kiri]).toEqual(['2024-07-01 01:30:05', '2024-07-01 01:30:05', '2024-07-01 01:30:05']);
    expect(alipayTime(NOW)).toBe('2024-07-01 01:30:05');
  });
});
