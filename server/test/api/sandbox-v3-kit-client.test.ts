/**
 * The kit's own API v3 calls (V3Client, V3Calls, the certificate source, the v3 trade bill) against
 * the sandbox's v3 platform through real HTTP: place, query, close, refund and refund query, profit
 * sharing, certificate mode, the bill; and an answer that does not verify is a channel error.
 */
import { systemClock } from '@kit/shared/clock';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { KitError } from '@kit/shared';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../src/db/schema';
import { billsV3 } from '../../src/payments/providers/social-v3/bill-v3';
import { V3Client } from '../../src/payments/providers/social-v3/client';
import { CertificateSource, PublicKeySource, type PlatformKeySource } from '../../src/payments/providers/social-v3/platform-key-source';
import { V3Calls } from '../../src/payments/providers/social-v3/v3-calls';
import { chinaDate } from '../../src/reconciliation/china-day';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { sandboxPost, startReceiver } from '../support/payments';
import { FAULT_LIMIT_MS, waitFor } from '../support/wait';
import { devV3Material, type DevV3Material } from '@kit/sandbox';

let seq = 0;
const tradeNo = (p = 'KV3') => `${p}${Date.now()}${++seq}`;

describeEachBackend('the kit v3 client against the sandbox v3', (backend) => {
  let kit: TestKit;
  let dev: DevV3Material;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const sub = '1230000109';

  beforeAll(async () => {
    // A refund and a split stay PROCESSING until the clock passes these delays: the tests freeze it to read that state.
    kit = await startTestKit(backend, { SANDBOX_REFUND_DELAY: '200ms', SANDBOX_PROFIT_SHARING_DELAY: '1s' });
    dev = devV3Material(kit.runtime.config.DATA_DIR);
    receiver = await startReceiver(() => ({ status: 204, body: '' }));
  });
  afterAll(async () => {
    await receiver.close();
    await kit.close();
  });
  afterEach(() => sandboxPost(kit.url, '/faults', {}));

  const clientWith = (keys: () => PlatformKeySource) => {
    const client: V3Client = new V3Client(
      {
        baseUrl: `${kit.url}/sandbox`,
        signer: {
          mchid: kit.runtime.config.PAY_SP_MCH_ID!,
          serial: dev.settings.PAY_SP_CERT_SERIAL,
          privateKey: createPrivateKey(dev.settings.PAY_SP_PRIVATE_KEY),
        },
        // A fault detector, not a figure: the sandbox in this process answers at once unless the machine is very busy.
        timeoutMs: FAULT_LIMIT_MS,
        clock: systemClock,
      },
      { verify: (h, body) => keys().verify(h, body) },
    );
    return client;
  };
  const publicKeys = () => new PublicKeySource(dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID, createPublicKey(dev.settings.PAY_PLATFORM_PUBLIC_KEY), Date.now);
  const calls = (keys: PlatformKeySource = publicKeys()) => {
    const client = clientWith(() => keys);
    return {
      client,
      calls: new V3Calls(
        () => client,
        keys,
        (kind) => `${receiver.url}/pay-notify/social/${kind}`,
      ),
    };
  };

  const channelOrder = (tradeType: string, cents: number, profitSharing = false): PayChannelOrdersTable => ({
    out_trade_no: tradeNo(),
    prepay_id: `kit-${tradeNo()}`,
    channel: 'SocialNative',
    trade_type: tradeType,
    sign_type: 'WECHATPAY2-SHA256-RSA2048',
    open_id: null,
    profit_sharing: profitSharing ? 1 : 0,
    state: 'open',
    total_cents: cents,
    merchant_json: JSON.stringify({
      appid: kit.runtime.config.PAY_SP_APPID,
      mch_id: kit.runtime.config.PAY_SP_MCH_ID,
      sub_mch_id: sub,
      ...(tradeType === 'JSAPI' ? { sub_openid: 'oSubOpenIdKit01' } : {}),
    }),
    channel_prepay_id: null,
    code_url: null,
    answer_json: null,
    transaction_id: null,
    paid_at: null,
    paid_via: null,
    created_at: Date.now(),
    updated_at: Date.now(),
  });
  const orderFor = (co: PayChannelOrdersTable) => ({ prepay_id: co.prepay_id, display_name: 'Kit v3 order', expire_at: Date.now() + 600_000 });

  test('places, queries, closes; pays, refunds and follows the refund to SUCCESS', async () => {
    const { calls: c } = calls();
    const native = channelOrder('NATIVE', 2500);
    const placed = await c.unifiedOrder(native, orderFor(native));
    expect(placed).toMatchObject({ ok: true, fields: { code_url: expect.stringMatching(/^weixin:\/\//), trade_type: 'NATIVE' } });
    expect(await c.orderQuery(native)).toMatchObject({ ok: true, fields: { trade_state: 'NOTPAY', total_fee: '2500', sub_mch_id: sub } });

    const jsapi = channelOrder('JSAPI', 300);
    expect(await c.unifiedOrder(jsapi, orderFor(jsapi))).toMatchObject({ ok: true, fields: { prepay_id: expect.stringMatching(/^wx/) } });
    expect(await c.closeOrder(jsapi)).toMatchObject({ ok: true });
    expect(await c.orderQuery(jsapi)).toMatchObject({ ok: true, fields: { trade_state: 'CLOSED' } });
    expect(await c.orderQuery({ ...jsapi, out_trade_no: 'NO-SUCH-ORDER' })).toMatchObject({ ok: false, errCode: 'ORDERNOTEXIST' });

    const paid = await sandboxPost(kit.url, '/pay', { codeUrl: placed.fields.code_url });
    const q = await c.orderQuery(native);
    expect(q).toMatchObject({
      ok: true,
      fields: { trade_state: 'SUCCESS', transaction_id: paid.body.transactionId, time_end: expect.stringMatching(/^\d{14}$/) },
    });
    expect(await c.closeOrder(native)).toMatchObject({ ok: false, errCode: 'ORDERPAID' });

    const co = { ...native, transaction_id: paid.body.transactionId as string };
    const refund: PayRefundsTable = {
      prepay_id: co.prepay_id,
      out_refund_no: tradeNo('KR'),
      out_trade_no: co.out_trade_no,
      channel: 'SocialNative',
      state: 'requesting',
      refund_cents: 2500,
      refund_id: null,
      requested_by: 'test',
      app_id: 'test',
      last_error: null,
      created_at: Date.now(),
      updated_at: Date.now(),
      completed_at: null,
    };
    kit.clock.freeze();
    try {
      expect(await c.refund(refund, co)).toMatchObject({
        ok: true,
        fields: { refund_status: 'PROCESSING', refund_fee: '2500', refund_id: expect.any(String) },
      });
      expect((await c.refundQuery(refund, co)).fields.refund_status_0).toBe('PROCESSING');
      await kit.advance('200ms');
    } finally {
      kit.clock.resume();
    }
    await waitFor(async () => (await c.refundQuery(refund, co)).fields.refund_status_0 === 'SUCCESS', 'the refund to succeed');
    expect(await c.refundQuery({ ...refund, out_refund_no: 'NO-SUCH-REFUND' }, co)).toMatchObject({ ok: false, errCode: 'REFUNDNOTEXIST' });
  });

  test('profit sharing: receiver (name encrypted to the platform key), split, query, unsplit amount, finish', async () => {
    const { calls: c } = calls();
    const co = channelOrder('NATIVE', 10000, true);
    const placed = await c.unifiedOrder(co, orderFor(co));
    const paid = await sandboxPost(kit.url, '/pay', { codeUrl: placed.fields.code_url });
    const shared = { ...co, transaction_id: paid.body.transactionId as string };
    const merchant = JSON.parse(co.merchant_json);
    expect(await c.addReceiver(merchant, { type: 'MERCHANT_ID', account: '1900000300', relationType: 'PARTNER', name: '分账接收方' } as never)).toMatchObject({
      ok: true,
    });
    const outOrderNo = tradeNo('KPS');
    kit.clock.freeze();
    try {
      const split = await c.split(shared, outOrderNo, [{ type: 'MERCHANT_ID', account: '1900000300', amount: 2000, description: 'fee' }], false);
      expect(split).toMatchObject({ ok: true, fields: { out_order_no: outOrderNo, status: 'PROCESSING' } });
      await kit.advance('1s');
    } finally {
      kit.clock.resume();
    }
    const done = await waitFor(async () => {
      const q = await c.querySplit(shared, outOrderNo);
      return q.fields.status === 'FINISHED' && q;
    });
    expect(JSON.parse(done.fields.receivers)).toEqual([expect.objectContaining({ account: '1900000300', amount: 2000, result: 'SUCCESS' })]);
    expect(await c.querySplit(shared, 'NO-SUCH-SPLIT')).toMatchObject({ ok: false, errCode: 'ORDER_NOT_EXIST' });
    expect(await c.unsplitAmount(shared)).toMatchObject({ ok: true, fields: { unsplit_amount: '8000' } });
    expect(await c.finishSharing(shared, tradeNo('KF'), 8000, 'done')).toMatchObject({ ok: true, fields: { status: 'FINISHED' } });
    expect(await c.unsplitAmount(shared)).toMatchObject({ ok: true, fields: { unsplit_amount: '0' } });
    expect(await c.removeReceiver(merchant, { type: 'MERCHANT_ID', account: '1900000300' })).toMatchObject({ ok: true });
  });

  test('certificate mode: the certificate source fetches /v3/certificates and verifies the answers that name its serial', async () => {
    await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate' });
    // The source fetches through the client, and the client verifies with the source.
    const client: V3Client = clientWith(() => source);
    const source = new CertificateSource(() => client, dev.settings.PAY_V3_KEY, Date.now);
    const c = new V3Calls(
      () => client,
      source,
      (kind) => `${receiver.url}/${kind}`,
    );
    const co = channelOrder('APP', 100);
    expect(await c.unifiedOrder(co, orderFor(co))).toMatchObject({ ok: true, fields: { prepay_id: expect.any(String) } });
    expect(source.ring.ids()).toEqual([dev.platform.certificateSerial]);
    expect((await source.encryptionKey()).id).toBe(dev.platform.certificateSerial);

    // In public-key mode again, the certificate-mode kit cannot verify the answers: a channel error.
    await sandboxPost(kit.url, '/faults', {});
    await expect(c.orderQuery(co)).rejects.toThrow(KitError);
    await expect(c.orderQuery(co)).rejects.toMatchObject({ error: 'channel_error', message: expect.stringContaining('no platform key with serial') });
  });

  test('certificate rotation: an answer naming the new certificate makes the source fetch the list again, and it verifies', async () => {
    await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate' });
    const client: V3Client = clientWith(() => source);
    const source = new CertificateSource(() => client, dev.settings.PAY_V3_KEY, Date.now);
    const c = new V3Calls(
      () => client,
      source,
      (kind) => `${receiver.url}/${kind}`,
    );
    const co = channelOrder('NATIVE', 100);
    await c.unifiedOrder(co, orderFor(co));
    expect(source.ring.ids()).toEqual([dev.platform.certificateSerial]);
    await sandboxPost(kit.url, '/faults', { v3Serial: 'certificate', v3Certificates: 'rotated' });
    expect(await c.orderQuery(co)).toMatchObject({ ok: true, fields: { trade_state: 'NOTPAY' } });
    expect(source.ring.ids()).toHaveLength(2);
    expect(source.ring.ids()).toContain(dev.platform.certificateSerial);
    // Personal names now go to the certificate that expires last.
    expect((await source.encryptionKey()).id).not.toBe(undefined);
  });

  test('the v3 trade bill downloads and its hash checks; a day without trade is none', async () => {
    const { client, calls: c } = calls();
    const co = channelOrder('NATIVE', 777);
    const placed = await c.unifiedOrder(co, orderFor(co));
    await sandboxPost(kit.url, '/pay', { codeUrl: placed.fields.code_url });
    const bills = billsV3(() => client);
    const today = await bills.download(chinaDate(Date.now()));
    expect(today.kind).toBe('bill');
    expect(today.kind === 'bill' && today.text).toContain(`\`${co.out_trade_no}`);
    expect(await bills.download('2001-01-01')).toEqual({ kind: 'none' });
    await sandboxPost(kit.url, '/faults', { bills: 'creating' });
    expect(await bills.download(chinaDate(Date.now()))).toEqual({ kind: 'not_ready', why: 'STATEMENT_CREATING' });
    await sandboxPost(kit.url, '/faults', { bills: 'truncated' });
    await expect(bills.download(chinaDate(Date.now()))).rejects.toThrow(/does not match its hash|does not decompress/);
  });
});
