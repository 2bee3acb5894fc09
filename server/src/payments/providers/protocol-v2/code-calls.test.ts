/**
 * Protocol v2's payment code calls (`pay/micropay`, `secapi/pay/reverse`) refereed by
 * wechatpay-axios-plugin's v2 helpers (its XML transformer and `Hash.sign`), a Node SDK the kit does
 * not contain: a platform written with them reads the kit's requests and checks their signatures,
 * and signs its answers, which the kit verifies and reads (paid, the payer confirming, a reverse
 * asked again).
 */
import { systemClock } from '@kit/shared/clock';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash, Transformer } from 'wechatpay-axios-plugin';
import type { PayChannelOrdersTable } from '../../../db/schema';
import { socialAdapter } from '../social-v3/merchant';
import { v2CodeCalls } from './code-calls';
import { codePaymentOf } from './code-payment';

const KEY = 'a'.repeat(16) + 'B'.repeat(16);
const merchant = { appid: 'wx5andb0xsp000001', mch_id: '1900000109', sub_appid: 'wxmerchantapp0001', sub_mch_id: '1230000109' };
const co: PayChannelOrdersTable = {
  out_trade_no: 'C20250101A',
  prepay_id: 'P1',
  channel: 'SocialNative',
  trade_type: 'MICROPAY',
  sign_type: 'HMAC-SHA256',
  open_id: null,
  profit_sharing: 0,
  state: 'creating',
  total_cents: 880,
  merchant_json: JSON.stringify(merchant),
  channel_prepay_id: null,
  code_url: null,
  answer_json: null,
  transaction_id: null,
  paid_at: null,
  paid_via: null,
  created_at: 0,
  updated_at: 0,
};

describe('protocol v2 payment code calls against wechatpay-axios-plugin', () => {
  let server: Server;
  let baseUrl = '';
  const seen: Array<{ url: string; fields: Record<string, string>; signatureMatches: boolean }> = [];
  let result: Record<string, string> = {};

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const fields = Transformer.toObject(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
        const { sign, ...unsigned } = fields;
        seen.push({ url: req.url!, fields, signatureMatches: Hash.equals(Hash.sign(fields.sign_type as 'HMAC-SHA256' | 'MD5', unsigned, KEY), sign) });
        const answer: Record<string, string> = { return_code: 'SUCCESS', return_msg: 'OK', ...merchant, nonce_str: 'n0nce', ...result };
        answer.sign = Hash.sign('HMAC-SHA256', answer, KEY);
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(Transformer.toXml(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const calls = () =>
    v2CodeCalls(
      socialAdapter(
        { DATA_DIR: '', production: false, PAY_GATEWAY_TIMEOUT: 5000, PAY_PROTOCOL: 'v2', PAY_SP_APPID: merchant.appid, PAY_SP_MCH_ID: merchant.mch_id },
        () => ({
          baseUrl,
          key: KEY,
          timeoutMs: 5000,
          clock: systemClock,
        }),
      ),
    );
  const codes = () => {
    const c = calls();
    return codePaymentOf(
      () => c,
      () => Date.UTC(2025, 0, 1, 2, 6),
    );
  };

  test('micropay: the documented fields, a signature the plugin computes alike; its signed answers read as paid and as the payer confirming', async () => {
    result = {
      result_code: 'SUCCESS',
      trade_type: 'MICROPAY',
      total_fee: '880',
      transaction_id: '4200000001202501010000000001',
      out_trade_no: co.out_trade_no,
      time_end: '20250101100530',
    };
    const order = { prepay_id: 'P1', display_name: 'Corner Shop', total_cents: 880, expire_at: 0 };
    expect(await codes().pay(co, order, { authCode: '130061098828009406', deviceId: 'POS-01' })).toEqual({
      ok: true,
      paid: { transactionId: '4200000001202501010000000001', paidAt: Date.UTC(2025, 0, 1, 2, 5, 30, 999) },
    });
    const sent = seen.at(-1)!;
    expect(sent.url).toBe('/pay/micropay');
    expect(sent.signatureMatches).toBe(true);
    const { nonce_str: nonce, sign: _sign, ...fields } = sent.fields;
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(fields).toEqual({
      ...merchant,
      device_info: 'POS-01',
      body: 'Corner Shop',
      attach: 'P1',
      out_trade_no: co.out_trade_no,
      total_fee: '880',
      fee_type: 'CNY',
      spbill_create_ip: '127.0.0.1',
      auth_code: '130061098828009406',
      sign_type: 'HMAC-SHA256',
    });
    result = { result_code: 'FAIL', err_code: 'USERPAYING', err_code_des: '需要用户输入支付密码' };
    expect(await codes().pay(co, order, { authCode: '130061098828009407' })).toEqual({ ok: true, paid: null });
    expect(seen.at(-1)!.fields.device_info).toBeUndefined();
  });

  test('reverse: to /secapi/pay/reverse with the merchant and out_trade_no, signed alike; recall Y asks again, N is done', async () => {
    result = { result_code: 'FAIL', err_code: 'SYSTEMERROR', err_code_des: '系统超时', recall: 'Y' };
    expect(await codes().cancel(co)).toEqual({ ok: true, again: true });
    const { nonce_str: _n, sign: _s, ...fields } = seen.at(-1)!.fields;
    expect(seen.at(-1)).toMatchObject({ url: '/secapi/pay/reverse', signatureMatches: true });
    expect(fields).toEqual({ ...merchant, out_trade_no: co.out_trade_no, sign_type: 'HMAC-SHA256' });
    result = { result_code: 'SUCCESS', recall: 'N' };
    expect(await codes().cancel(co)).toEqual({ ok: true, again: false });
  });
});
