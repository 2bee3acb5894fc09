/**
 * An order is paid once (design 6.3), through real HTTP against the sandbox playing both wallets, on
 * SQLite and PostgreSQL: the order has an Alipay code and a social-channel code (the payer switched);
 * the first payment finishes it with one `finish` callback and closes the other wallet's open order
 * at its platform; a second payment that got through anyway (the Alipay code is no trade to close
 * until scanned; the social code paid before its close) is refunded automatically through its own
 * wallet, shown in the console's story and reconciled with the day's bill, and the order's own refund
 * (4.6) refunds the first payment only.
 */
import { sandboxOf } from '@kit/sandbox';
import { chinaDate } from '../../src/reconciliation/china-day';
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { sandboxTables, startTestKit, type TestKit } from '../support/kit';
import { PageClient } from '../support/page-client';
import { bothWalletsFixture, channelOrderOf, newOrder, sandboxPost, sandboxPrepayId, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const ALIPAY_TOKEN = 'appAuthToken_paid_once_01';
/** SANDBOX_REFUND_DELAY: from a refund accepted by the sandbox's platform to its completion and notification. */
const REFUND_DELAY_MS = 200;

describeEachBackend(
  'an order is paid once',
  (backend) => {
    jest.setTimeout(60_000);
    let kit: TestKit;
    let f: PayFixture;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    beforeAll(async () => {
      kit = await startTestKit(backend, {
        SANDBOX_REFUND_DELAY: `${REFUND_DELAY_MS}ms`,
        // Later than the tests move the clock: no scheduled order query beats the test's steps (or closes an order the first payment must close).
        PAYMENT_QUERY_SCHEDULE: '20s,500ms,1s',
      });
      receiver = await startReceiver();
      f = await bothWalletsFixture(kit, ALIPAY_TOKEN, `${receiver.url}/cb`);
    });
    // The clock moves only as a test moves it: a notification cannot be overtaken by a query, and a platform's delay
    // (SANDBOX_REFUND_DELAY, a payment's time to the second) passes when the test says.
    beforeEach(() => kit.clock.freeze());
    afterEach(() => kit.clock.resume());
    afterAll(async () => {
      await kit.close();
      await receiver.close();
    }, 30_000);

    const services = () => kit.runtime.services;
    const alipayAt = (outTradeNo: string) => sandboxOf(services())!.alipay!.trade(ALIPAY_TOKEN, outTradeNo);
    const socialAt = async (co: { out_trade_no: string; channel_prepay_id: string | null }) =>
      sandboxTables(kit)
        .selectFrom('sandbox_orders')
        .select(['state'])
        .where('prepay_id', '=', await sandboxPrepayId(kit, co))
        .executeTakeFirstOrThrow();
    const refundsAtSocial = async (co: { out_trade_no: string; channel_prepay_id: string | null }) =>
      sandboxTables(kit)
        .selectFrom('sandbox_refunds')
        .select(['out_refund_no', 'refund_fee'])
        .where('prepay_id', '=', await sandboxPrepayId(kit, co))
        .execute();
    const callbackStatuses = async (prepayId: string) => (await services().callbacks.history(prepayId)).map((c) => c.status);
    const byChannel = (prepayId: string, channel: string) => channelOrderOf(kit, prepayId, channel);

    /** An order with an Alipay code, then a social-channel code (the payer switched wallets): both payable at their platforms. */
    const orderWithBothCodes = async (amount: string) => {
      const prepayId = await newOrder(f, amount);
      const alipay = await f.client.alipayNative(prepayId);
      const social = await f.client.socialPayNative(prepayId);
      return { prepayId, qrCode: alipay.args.qr_code, codeUrl: social.args.code_url };
    };

    /** The finish callback delivered, and still the only callback a while later. */
    const oneFinishCallback = async (prepayId: string) => {
      await waitFor(async () => (await services().callbacks.history(prepayId)).some((c) => c.status === 'finish' && c.state === 'delivered'), 'finish');
      // A while later: the platforms' duplicate notifications (Alipay's at once, the social platform's 200 ms after) are in.
      await kit.advance('500ms');
      await sandboxOf(services())!.alipay!.idle();
      await kit.settle();
      expect(await callbackStatuses(prepayId)).toEqual(['finish']);
      expect(receiver.received.filter((r) => r.body.includes(prepayId))).toHaveLength(1);
    };

    /** The order's story as the console's API tells it to the sub-merchant's login. */
    const storyOf = async (prepayId: string) => {
      const desk = new PageClient(`${kit.url}/console/api`);
      expect((await desk.call('POST', '/login', { userId: f.subId, pw: f.pw })).status).toBe(200);
      return (await desk.call('GET', `/orders/${prepayId}`)).body.order;
    };

    const refundTheOrder = async (prepayId: string) => {
      const token = (await f.client.login(f.subId, f.pw)).loginToken;
      expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
      // Completed by the platform (and notified) once its delay has passed.
      await kit.advance(REFUND_DELAY_MS);
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
      await waitFor(async () => (await callbackStatuses(prepayId)).length === 2, 'refunded callback');
      expect(await callbackStatuses(prepayId)).toEqual(['finish', 'refunded']);
      return (await services().payments.state(prepayId)).refund!;
    };

    test('paid through the social channel, then the Alipay code paid too: the Alipay payment is refunded automatically; the story shows it; 4.6 refunds the first only', async () => {
      const { prepayId, qrCode, codeUrl } = await orderWithBothCodes('8.88');
      expect((await sandboxPost(kit.url, '/pay', { codeUrl })).status).toBe(200);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      const social = await byChannel(prepayId, 'SocialNative');
      expect(social.state).toBe('paid');

      // The payer's other phone scans the Alipay code: Alipay takes the money (its code was no trade the kit could close).
      const second = await sandboxPost(kit.url, '/alipay/pay', { qrCode });
      expect(second).toMatchObject({ status: 200, body: { status: 'success' } });
      const alipay = await byChannel(prepayId, 'Alipay');
      await waitFor(async () => (await services().payments.state(prepayId)).duplicates[0]?.state === 'success', 'the second payment refunded');
      const [dup] = (await services().payments.state(prepayId)).duplicates;
      expect(dup).toMatchObject({ out_trade_no: alipay.out_trade_no, channel: 'Alipay', refund_cents: 888, state: 'success' });
      // At Alipay: refunded in full under the duplicate's own refund number.
      expect(alipayAt(alipay.out_trade_no)).toMatchObject({ status: 'TRADE_CLOSED', refunds: [{ outRequestNo: dup.out_refund_no, cents: 888 }] });
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      await oneFinishCallback(prepayId);

      // The console's story and detail tell it.
      const story = await storyOf(prepayId);
      const kinds = story.timeline.map((e: { kind: string }) => e.kind);
      expect(kinds.filter((k: string) => k === 'paid')).toHaveLength(1);
      expect(story.timeline.find((e: { kind: string }) => e.kind === 'duplicatePaid')).toMatchObject({
        cause: 'notification',
        detail: { channel: 'Alipay', outTradeNo: alipay.out_trade_no, amount: '8.88' },
      });
      expect(story.timeline.find((e: { kind: string }) => e.kind === 'duplicateRefunded')).toMatchObject({ detail: { channel: 'Alipay', amount: '8.88' } });
      expect(story.duplicatePayments).toEqual([
        expect.objectContaining({ channel: 'Alipay', outTradeNo: alipay.out_trade_no, refundState: 'success', amount: '8.88' }),
      ]);
      expect(story.refundable).toBe(true);

      // The payer page's order says which wallet paid it and that the second payment was refunded automatically.
      const payerPage = await (await fetch(`${kit.url}/mp/api/orders/${prepayId}`)).json();
      expect(payerPage).toMatchObject({
        status: 'finish',
        paymentChannel: 'SocialNative',
        secondPayments: [{ paymentChannel: 'Alipay', amount: '8.88', refund: 'refunded' }],
      });

      // The order's own refund goes back through the first payment only.
      const refund = await refundTheOrder(prepayId);
      expect(refund).toMatchObject({ out_trade_no: social.out_trade_no, channel: 'SocialNative', state: 'success' });
      expect(await socialAt(social)).toEqual({ state: 'REFUND' });
      expect((await refundsAtSocial(social)).map((r) => r.out_refund_no)).toEqual([refund.out_refund_no]);
      expect(alipayAt(alipay.out_trade_no)!.refunds).toHaveLength(1);

      // The metrics count it.
      const metrics = await (await fetch(`${kit.url}/metrics`)).text();
      expect(metrics).toMatch(/kit_duplicate_payments_total\{channel="Alipay"\} [1-9]/);
    });

    test('paid through Alipay first: the social channel order still open is closed at its platform, and can no longer be paid', async () => {
      const { prepayId, qrCode, codeUrl } = await orderWithBothCodes('2.22');
      expect((await sandboxPost(kit.url, '/alipay/pay', { qrCode })).status).toBe(200);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      const social = await byChannel(prepayId, 'SocialNative');
      await waitFor(async () => (await socialAt(social)).state === 'CLOSED', 'the social order closed at the platform');
      await waitFor(async () => (await byChannel(prepayId, 'SocialNative')).state === 'closed', 'closed in the kit');
      expect((await sandboxPost(kit.url, '/pay', { codeUrl })).status).not.toBe(200);
      expect((await services().payments.state(prepayId)).duplicates).toEqual([]);
      await oneFinishCallback(prepayId);
    });

    test('paid through Alipay, the social code paid before its close: the close finds it paid and it is refunded through the social channel', async () => {
      const { prepayId, qrCode, codeUrl } = await orderWithBothCodes('3.33');
      // The social payment's notification is lost: the kit learns of it only when it closes that order.
      expect((await sandboxPost(kit.url, '/faults', { payNotifications: 'drop' })).status).toBe(200);
      try {
        expect((await sandboxPost(kit.url, '/pay', { codeUrl })).status).toBe(200);
      } finally {
        await sandboxPost(kit.url, '/faults', {});
      }
      // Platforms stamp payments to the second: the social payment is a second or more the earlier one.
      await kit.advance('1100ms');
      expect((await sandboxPost(kit.url, '/alipay/pay', { qrCode })).status).toBe(200);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      const alipay = await byChannel(prepayId, 'Alipay');
      expect(alipay.state).toBe('paid');

      // Its refund accepted by the social platform, then completed once the platform's delay has passed.
      await waitFor(async () => (await services().payments.state(prepayId)).duplicates[0]?.state === 'accepted', 'the second payment’s refund accepted');
      await kit.advance(REFUND_DELAY_MS);
      await waitFor(async () => (await services().payments.state(prepayId)).duplicates[0]?.state === 'success', 'the second payment refunded');
      const social = await byChannel(prepayId, 'SocialNative');
      const [dup] = (await services().payments.state(prepayId)).duplicates;
      expect(dup).toMatchObject({ out_trade_no: social.out_trade_no, channel: 'SocialNative', refund_cents: 333 });
      expect(social).toMatchObject({ state: 'paid', paid_via: 'query' });
      // The social payment came first at its platform, yet the order's payment (the POS's and the console's wallet) is Alipay's.
      expect((await services().payments.paidChannels([prepayId])).get(prepayId)).toBe('Alipay');
      expect(await socialAt(social)).toEqual({ state: 'REFUND' });
      expect(await refundsAtSocial(social)).toEqual([{ out_refund_no: dup.out_refund_no, refund_fee: 333 }]);
      expect(alipayAt(alipay.out_trade_no)).toMatchObject({ status: 'TRADE_SUCCESS', refunds: [] });
      await oneFinishCallback(prepayId);
      const story = await storyOf(prepayId);
      expect(story.timeline.find((e: { kind: string }) => e.kind === 'duplicatePaid')).toMatchObject({
        cause: 'query',
        detail: { channel: 'SocialNative', outTradeNo: social.out_trade_no, amount: '3.33' },
      });
      expect(story.timeline.some((e: { kind: string }) => e.kind === 'duplicateRefunded')).toBe(true);
      expect(story.timeline.filter((e: { kind: string }) => e.kind === 'paid')).toEqual([
        expect.objectContaining({ cause: 'notification', detail: expect.objectContaining({ outTradeNo: alipay.out_trade_no }) }),
      ]);

      // 4.6 refunds the Alipay payment, not the social one again.
      const refund = await refundTheOrder(prepayId);
      expect(refund).toMatchObject({ out_trade_no: alipay.out_trade_no, channel: 'Alipay' });
      expect(alipayAt(alipay.out_trade_no)).toMatchObject({ status: 'TRADE_CLOSED', refunds: [{ outRequestNo: refund.out_refund_no, cents: 333 }] });
      expect(await refundsAtSocial(social)).toHaveLength(1);

      // The day's social bill shows the second payment and its refund: both reconcile, explained, not as unknown lines.
      const report = await services().reconciliation.reconcile(chinaDate(kit.clock.now()), 'SocialNative');
      const named = report.differences.filter((d) => d.outTradeNo === social.out_trade_no || d.outRefundNo === dup.out_refund_no);
      expect(named).toEqual([]);
      const bill = await sandboxTables(kit).selectFrom('sandbox_refunds').select('out_refund_no').where('out_refund_no', '=', dup.out_refund_no).execute();
      expect(bill).toHaveLength(1);
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
