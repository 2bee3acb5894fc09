/**
 * SocialNative's v3 calls over real HTTP against a platform written with wechatpay-axios-plugin's
 * helpers: each call goes where the documentation says, signed; each documented answer reads into
 * what the services act on; a verified answer that is not the documented JSON is a channel error.
 */
import { systemClock } from '@kit/shared/clock';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { Formatter, Rsa } from 'wechatpay-axios-plugin';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../../db/schema';
import { V3Client } from './client';
import { PublicKeySource } from './platform-key-source';
import { parseAuthorization } from './sign';
import { V3Calls } from './v3-calls';

const merchantKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUB_KEY_ID = 'PUB_KEY_ID_0119000000012025010100000000000002';
const merchant = { appid: 'wx8888888888888888', mch_id: '1900000001', sub_mch_id: '1900000109' };

const co: PayChannelOrdersTable = {
  out_trade_no: 'T20250101A',
  prepay_id: 'P1',
  channel: 'SocialNative',
  trade_type: 'NATIVE',
  sign_type: 'RSA',
  open_id: null,
  profit_sharing: 1,
  state: 'open',
  total_cents: 1234,
  merchant_json: JSON.stringify(merchant),
  channel_prepay_id: null,
  code_url: null,
  answer_json: null,
  transaction_id: '4200000985202501011234567890',
  paid_at: null,
  paid_via: null,
  created_at: 0,
  updated_at: 0,
};
const refund = { prepay_id: 'P1', out_refund_no: 'R1', out_trade_no: 'T20250101A', refund_cents: 1234 } as PayRefundsTable;

interface Seen {
  method: string;
  url: string;
  body: Record<string, unknown> | null;
  serial?: string;
  signed: boolean;
}

describe('SocialNative v3 calls', () => {
  let server: Server;
  let calls: V3Calls;
  const seen: Seen[] = [];
  let undocumented = false;

  const answers: Record<string, [number, object | null]> = {
    'POST /v3/pay/partner/transactions/native': [200, { code_url: 'weixin://wxpay/bizpayurl?pr=p4lpSuKzz' }],
    'GET /v3/pay/partner/transactions/out-trade-no/T20250101A': [
      200,
      {
        sp_appid: merchant.appid,
        sp_mchid: merchant.mch_id,
        sub_mchid: merchant.sub_mch_id,
        out_trade_no: 'T20250101A',
        transaction_id: '4200000985202501011234567890',
        trade_type: 'NATIVE',
        trade_state: 'SUCCESS',
        success_time: '2025-01-01T10:05:06+08:00',
        amount: { total: 1234, currency: 'CNY' },
      },
    ],
    'POST /v3/pay/partner/transactions/out-trade-no/T20250101A/close': [204, null],
    'POST /v3/refund/domestic/refunds': [
      200,
      { refund_id: '5000', out_refund_no: 'R1', out_trade_no: 'T20250101A', status: 'PROCESSING', amount: { refund: 1234, total: 1234, currency: 'CNY' } },
    ],
    'GET /v3/refund/domestic/refunds/R1': [
      200,
      { refund_id: '5000', out_refund_no: 'R1', out_trade_no: 'T20250101A', status: 'SUCCESS', amount: { refund: 1234, total: 1234, currency: 'CNY' } },
    ],
    'POST /v3/profitsharing/receivers/add': [200, { sub_mchid: '1900000109', type: 'MERCHANT_ID', account: '1900000200', relation_type: 'PARTNER' }],
    'POST /v3/profitsharing/receivers/delete': [200, { sub_mchid: '1900000109', type: 'MERCHANT_ID', account: '1900000200' }],
    'POST /v3/profitsharing/orders': [
      200,
      {
        out_order_no: 'S1',
        order_id: '3008',
        state: 'PROCESSING',
        receivers: [{ type: 'MERCHANT_ID', account: '1900000200', amount: 100, description: 'A', result: 'PENDING' }],
      },
    ],
    'GET /v3/profitsharing/orders/S1': [
      200,
      {
        out_order_no: 'S1',
        order_id: '3008',
        state: 'FINISHED',
        receivers: [{ type: 'MERCHANT_ID', account: '1900000200', amount: 100, description: 'A', result: 'SUCCESS', finish_time: '2025-01-02T00:00:00+08:00' }],
      },
    ],
    'POST /v3/profitsharing/orders/unfreeze': [200, { out_order_no: 'S2', order_id: '3009', state: 'PROCESSING', receivers: [] }],
    'GET /v3/profitsharing/transactions/4200000985202501011234567890/amounts': [200, { transaction_id: '4200000985202501011234567890', unsplit_amount: 270 }],
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const parts = parseAuthorization(req.headers.authorization);
        const signed =
          !!parts && Rsa.verify(Formatter.request(req.method!, req.url!, parts.timestamp, parts.nonce_str, text), parts.signature, merchantKeys.publicKey);
        seen.push({
          method: req.method!,
          url: req.url!,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
          serial: req.headers['wechatpay-serial'] as string | undefined,
          signed,
        });
        const [status, body] = answers[`${req.method} ${req.url!.split('?')[0]}`] ?? [404, { code: 'NOT_FOUND', message: 'no such endpoint' }];
        const out = undocumented ? JSON.stringify({ unexpected: true }) : body ? JSON.stringify(body) : '';
        const ts = String(Formatter.timestamp());
        const nonce = Formatter.nonce();
        res.writeHead(status, {
          'content-type': 'application/json',
          'request-id': 'RID-42',
          'wechatpay-timestamp': ts,
          'wechatpay-nonce': nonce,
          'wechatpay-serial': PUB_KEY_ID,
          'wechatpay-signature': Rsa.sign(Formatter.response(ts, nonce, out), platform.privateKey),
        });
        res.end(out);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const keys = new PublicKeySource(PUB_KEY_ID, platform.publicKey, Date.now);
    const client = new V3Client(
      {
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        signer: { mchid: merchant.mch_id, serial: 'ABCDEF0123456789', privateKey: merchantKeys.privateKey },
        timeoutMs: 5000,
        clock: systemClock,
      },
      keys,
    );
    calls = new V3Calls(
      () => client,
      keys,
      (kind) => `https://kit.example/pay-notify/social/${kind}`,
    );
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    undocumented = false;
  });

  test('order, query, close, refund and refund query', async () => {
    const placed = await calls.unifiedOrder(co, { prepay_id: 'P1', display_name: '咖啡'.repeat(40), expire_at: Date.UTC(2025, 0, 1, 2, 30) });
    expect(placed).toMatchObject({ ok: true, fields: { code_url: 'weixin://wxpay/bizpayurl?pr=p4lpSuKzz' } });
    const sent = seen.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', url: '/v3/pay/partner/transactions/native', signed: true });
    expect(sent.body).toMatchObject({
      attach: 'P1',
      notify_url: 'https://kit.example/pay-notify/social/pay',
      settle_info: { profit_sharing: true },
      amount: { total: 1234 },
    });
    expect(Buffer.byteLength(sent.body!.description as string)).toBeLessThanOrEqual(127);

    expect(await calls.orderQuery(co)).toMatchObject({ ok: true, fields: { trade_state: 'SUCCESS', total_fee: '1234', time_end: '20250101100506' } });
    expect(seen.at(-1)!.url).toBe('/v3/pay/partner/transactions/out-trade-no/T20250101A?sp_mchid=1900000001&sub_mchid=1900000109');
    expect((await calls.closeOrder(co)).ok).toBe(true);
    expect(await calls.refund(refund, co)).toMatchObject({ ok: true, fields: { refund_id: '5000', refund_status: 'PROCESSING' } });
    expect(seen.at(-1)!.body).toMatchObject({ transaction_id: '4200000985202501011234567890', notify_url: 'https://kit.example/pay-notify/social/refund' });
    expect(await calls.refundQuery(refund, co)).toMatchObject({
      ok: true,
      fields: { out_refund_no_0: 'R1', refund_status_0: 'SUCCESS', refund_fee_0: '1234' },
    });
    expect(seen.every((s) => s.signed)).toBe(true);
  });

  test('profit sharing: the receiver name reaches the platform readable only with its key', async () => {
    expect((await calls.addReceiver(merchant, { type: 'MERCHANT_ID', account: '1900000200', name: '深圳某某公司', relationType: 'PARTNER' })).ok).toBe(true);
    const add = seen.at(-1)!;
    expect(add.serial).toBe(PUB_KEY_ID);
    expect(Rsa.decrypt(add.body!.name as string, platform.privateKey)).toBe('深圳某某公司');
    expect((await calls.removeReceiver(merchant, { type: 'MERCHANT_ID', account: '1900000200' })).ok).toBe(true);
    expect(await calls.split(co, 'S1', [{ type: 'MERCHANT_ID', account: '1900000200', amount: 100, description: 'A' }], false)).toMatchObject({
      ok: true,
      fields: { order_id: '3008', status: 'PROCESSING' },
    });
    expect(seen.at(-1)!.body).toMatchObject({ unfreeze_unsplit: false, transaction_id: '4200000985202501011234567890' });
    const q = await calls.querySplit(co, 'S1');
    expect(q.fields.status).toBe('FINISHED');
    expect(JSON.parse(q.fields.receivers)).toEqual([
      { type: 'MERCHANT_ID', account: '1900000200', amount: 100, description: 'A', result: 'SUCCESS', finish_time: '20250102000000' },
    ]);
    expect((await calls.finishSharing(co, 'S2', 270, '解冻')).ok).toBe(true);
    expect((await calls.unsplitAmount(co)).fields.unsplit_amount).toBe('270');
  });

  test('a signed answer that is not the documented JSON is a channel error naming the Request-ID', async () => {
    undocumented = true;
    await expect(calls.orderQuery(co)).rejects.toMatchObject({ error: 'channel_error', message: expect.stringContaining('Request-ID RID-42') });
  });
});
