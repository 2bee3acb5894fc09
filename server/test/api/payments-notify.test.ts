/**
 * Protocol v2 channel notifications (XML): duplicates change nothing twice; forged or mismatching ones
 * are refused and change nothing. API v3's are in payments-notify-v3.test.ts.
 */
import { signFields } from '../../src/payments/providers/protocol-v2/sign';
import { parseXml, toXml } from '../../src/payments/providers/protocol-v2/xml';
import { encryptReqInfo } from '../../src/payments/providers/protocol-v2/refund-info';
import { formatChinaTime } from '../../src/payments/providers/china-time';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payByCode, payFixture, sandboxPost, type PayFixture } from '../support/payments';
import { sandboxOf } from '@kit/sandbox';
import { waitFor } from '../support/wait';

describeEachBackend(
  'protocol v2 payment notifications',
  (backend) => {
    let kit: TestKit;
    let f: PayFixture;
    let key: string;

    beforeAll(async () => {
      kit = await startTestKit(backend, { SANDBOX_DUPLICATE_NOTIFY: '2', SANDBOX_NOTIFY_SCHEDULE: '100ms,100ms,100ms' });
      f = await payFixture(kit);
      key = kit.runtime.config.PAY_SP_KEY!;
    });
    afterAll(() => kit.close());

    const post = async (path: string, xml: string) => {
      const res = await fetch(`${kit.url}/pay-notify${path}`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: xml });
      return { status: res.status, fields: parseXml(await res.text()) };
    };

    /** A notification as the platform would send it for the order's open channel order. */
    const genuine = async (prepayId: string, patch: Record<string, string> = {}, signType: 'MD5' | 'HMAC-SHA256' = 'HMAC-SHA256', signKey = key) => {
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      const m = JSON.parse(co.merchant_json);
      const fields: Record<string, string> = {
        return_code: 'SUCCESS',
        appid: m.appid,
        mch_id: m.mch_id,
        sub_mch_id: m.sub_mch_id,
        nonce_str: 'abc123',
        result_code: 'SUCCESS',
        openid: 'oSomeone',
        trade_type: co.trade_type,
        bank_type: 'OTHERS',
        total_fee: String(co.total_cents),
        cash_fee: String(co.total_cents),
        fee_type: 'CNY',
        transaction_id: `4200${Date.now()}`,
        out_trade_no: co.out_trade_no,
        time_end: formatChinaTime(Date.now()),
        ...patch,
      };
      fields.sign = signFields(fields, signKey, signType);
      return toXml(fields);
    };

    test('duplicated notifications: acknowledged every time, one state change and one callback', async () => {
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      const first = await f.client.waitForPayment(prepayId);
      expect(first.status).toBe('finish');
      const channelPrepayId = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].channel_prepay_id!;
      // The sandbox sends the notification, then two extra copies; and once more on request.
      await sandboxPost(kit.url, '/renotify', { prepayId: channelPrepayId });
      const sandbox = sandboxOf(kit.runtime.services)!.notifier;
      await waitFor(async () => {
        const rows = await sandbox.notificationsFor(channelPrepayId);
        return rows.length === 2 && rows.every((r) => r.state === 'acked') && rows[0].attempts === 3;
      }, 'every copy acknowledged');
      const after = await f.client.prepayDetail(prepayId);
      expect(after).toEqual(first);
      const callbacks = await kit.runtime.services.callbacks.history(prepayId);
      expect(callbacks.map((c) => c.status)).toEqual(['finish']);
    });

    test('a hand-made genuine notification is taken; repeating it changes nothing', async () => {
      const prepayId = await newOrder(f);
      await f.client.socialPayNative(prepayId);
      const xml = await genuine(prepayId);
      expect(await post('/social/pay', xml)).toMatchObject({ status: 200, fields: { return_code: 'SUCCESS' } });
      const detail = await f.client.prepayDetail(prepayId);
      expect(detail.status).toBe('finish');
      expect(await post('/social/pay', xml)).toMatchObject({ status: 200, fields: { return_code: 'SUCCESS' } });
      expect(await f.client.prepayDetail(prepayId)).toEqual(detail);
      expect(await kit.runtime.services.callbacks.history(prepayId)).toHaveLength(1);
    });

    test.each([
      ['a bad signature', (p: string) => genuine(p, {}, 'HMAC-SHA256', 'not-the-key-not-the-key-not-the-')],
      ['the wrong sign type', (p: string) => genuine(p, {}, 'MD5')],
      ['a different amount', (p: string) => genuine(p, { total_fee: '1', cash_fee: '1' })],
      ['another merchant', (p: string) => genuine(p, { sub_mch_id: '9999999999' })],
      ['an unknown out_trade_no', (p: string) => genuine(p, { out_trade_no: 'NoSuchTradeNumber' })],
    ])('a notification with %s is refused and changes nothing', async (_what, make) => {
      const prepayId = await newOrder(f, '12.34');
      await f.client.socialPayNative(prepayId);
      const answer = await post('/social/pay', await make(prepayId));
      expect(answer.status).toBe(400);
      expect(answer.fields.return_code).toBe('FAIL');
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].state).toBe('open');
      expect(await kit.runtime.services.callbacks.history(prepayId)).toHaveLength(0);
    });

    test('garbage, entity declarations and the wrong channel are refused', async () => {
      expect((await post('/social/pay', 'not xml at all <')).fields.return_code).toBe('FAIL');
      const bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><xml><a>&a;</a></xml>';
      expect((await post('/social/pay', bomb)).status).toBe(400);
      const prepayId = await newOrder(f);
      await f.client.socialPayNative(prepayId);
      // Genuine for the social channel, but posted where the card acquirer notifies.
      expect((await post('/card/pay', await genuine(prepayId))).status).toBe(400);
      expect((await post('/other/pay', await genuine(prepayId))).status).toBe(400);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    });

    test('a refund notification that does not decrypt with our key is refused', async () => {
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      await f.client.waitForPayment(prepayId);
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      const info = {
        out_trade_no: co.out_trade_no,
        out_refund_no: 'Rforged',
        refund_id: '1',
        total_fee: co.total_cents,
        refund_fee: co.total_cents,
        refund_status: 'SUCCESS',
      };
      const forged = toXml({ return_code: 'SUCCESS', appid: 'x', mch_id: 'y', nonce_str: 'n', req_info: encryptReqInfo(info, 'some-other-key') });
      expect((await post('/social/refund', forged)).status).toBe(400);
      // Even with our key, a refund we never requested is refused.
      const unknown = toXml({ return_code: 'SUCCESS', appid: 'x', mch_id: 'y', nonce_str: 'n', req_info: encryptReqInfo(info, key) });
      expect((await post('/social/refund', unknown)).status).toBe(400);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
    });
  },
  { protocols: ['v2'] },
);
