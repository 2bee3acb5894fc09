/**
 * Money paths that converge on their own (docs/payments.md), through real HTTP against the sandbox with
 * its faults (docs/sandbox.md): lost payment and refund notifications, a refund call lost on the way,
 * an order paid just before it expires, half-created channel orders, and the card-network channel.
 * No client retries anywhere: the service gets there by itself, with exactly one callback each.
 */
import type { IncomingMessage } from 'node:http';
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { heldCalls, startTestKit, type TestKit, sandboxTables } from '../support/kit';
import {
  SOCIAL_PARAMS,
  jobByKey,
  newOrder,
  payApi,
  payByCode,
  payFixture,
  sandboxOpenId,
  sandboxPost,
  startReceiver,
  type PayFixture,
  sandboxPrepayId,
} from '../support/payments';
import { sandboxOf } from '@kit/sandbox';
import { waitFor } from '../support/wait';

const CARD_PARAMS = { cardNetworkBizMchId: '898000000000001', terminalId: 'T0000001' };
/** The time limit of a channel call (PAY_GATEWAY_TIMEOUT), which the test of a held call moves the clock past. */
const GATEWAY_TIMEOUT_MS = 1_500;
/** A refund call to the platform: API v3 (`POST …/v3/refund/domestic/refunds`) or protocol v2 (`…/secapi/pay/refund`). */
const REFUND_CALL = /\/v3\/refund\/domestic\/refunds$|\/secapi\/pay\/refund$/;

/** Counts the refund calls that reach the service (the sandbox is served by it), held or not. */
function countRefundCalls(kit: TestKit): () => number {
  let n = 0;
  // Express has taken its mount path off `url` by now: `originalUrl` is the whole of it.
  kit.runtime.server.on('request', (req: IncomingMessage & { originalUrl?: string }) => {
    if (req.method === 'POST' && REFUND_CALL.test((req.originalUrl ?? req.url ?? '').split('?')[0])) n++;
  });
  return () => n;
}

async function setFaults(kit: TestKit, faults: object) {
  const res = await fetch(`${kit.url}/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  return { status: res.status, body: (await res.json()) as any };
}

/** The callbacks one receiver got for one order, as `status` values in arrival order. */
const callbacksOf = (received: Array<{ body: string }>, prepayId: string) =>
  received
    .map((r) => JSON.parse(r.body))
    .filter((b) => b.prepayId === prepayId)
    .map((b) => b.status as string);

describeEachBackend(
  'money paths converge',
  (backend) => {
    let kit: TestKit;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let f: PayFixture;
    let token: string;
    let refundCalls: () => number;

    beforeAll(async () => {
      kit = await startTestKit(backend, {
        PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s',
        PAY_GATEWAY_TIMEOUT: `${GATEWAY_TIMEOUT_MS}ms`,
        SANDBOX_REFUND_DELAY: '200ms',
      });
      receiver = await startReceiver();
      f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      token = (await f.client.login(f.subId, f.pw)).loginToken;
      refundCalls = countRefundCalls(kit);
    });
    afterEach(async () => {
      kit.clock.resume();
      await setFaults(kit, {});
    });
    afterAll(async () => {
      await kit.close();
      await receiver.close();
    });

    const paidOrder = async () => {
      const prepayId = await newOrder(f, '8.88');
      await payByCode(kit, f, prepayId);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      return prepayId;
    };
    /** The order's refund follow-up, when it has no run under way. */
    const refundFollowIdle = async (prepayId: string) => {
      const job = await jobByKey(kit, 'refund.follow', prepayId);
      return job && job.lease_token === null ? job : undefined;
    };
    /**
     * Waits until the order is refunded, moving the clock to each next run of its refund follow-up (and past the
     * sandbox's SANDBOX_REFUND_DELAY) instead of waiting their times out.
     */
    const refunded = (prepayId: string, client = f.client) =>
      waitFor(async () => {
        if ((await client.prepayDetail(prepayId)).status === 'refunded') return true;
        const job = await refundFollowIdle(prepayId);
        if (job?.state === 'pending') kit.clock.advanceTo(job.next_at);
        await kit.settle();
        return false;
      }, `order ${prepayId} refunded`);
    /**
     * Lets the service's time run on past what the test waited for, then checks nothing more arrived: the
     * platform's duplicate notifications (sent 200 ms after an acknowledgement) and what is due meanwhile run.
     */
    const settle = () => kit.advance('700ms');

    test('the faults API shows, sets and resets how the sandbox misbehaves', async () => {
      const defaults = {
        payNotifications: 'deliver',
        refunds: 'answer',
        refundNotifications: 'deliver',
        splits: 'answer',
        reverseRecalls: 0,
        billExtraPayments: 0,
        billAmountChanged: [],
        billOmitted: [],
        billNextDay: [],
        bills: 'ready',
        v3Serial: 'public-key',
        v3Certificates: 'current',
        // No signature probes under NODE_ENV=test (docs/sandbox.md).
        v3SignProbes: 0,
        mpTokens: 'valid',
        alipayRefusals: {},
        alipayErrors: 'signed',
      };
      const get = async () => (await (await fetch(`${kit.url}/sandbox/faults`)).json()) as any;
      expect(await get()).toEqual({ status: 'success', faults: defaults });
      expect(await setFaults(kit, { payNotifications: 'drop', refunds: 'hold' })).toEqual({
        status: 200,
        body: { status: 'success', faults: { ...defaults, payNotifications: 'drop', refunds: 'hold' } },
      });
      expect((await get()).faults).toEqual({ ...defaults, payNotifications: 'drop', refunds: 'hold' });
      // A post replaces the whole set.
      expect((await setFaults(kit, { refundNotifications: 'drop' })).body.faults).toEqual({ ...defaults, refundNotifications: 'drop' });
      for (const bad of [
        { payNotifications: 'lose' },
        { timeouts: 'all' },
        { refunds: true },
        { alipayRefusals: { 'alipay.trade.page.pay': 'ACQ.SYSTEM_ERROR' } },
        { alipayRefusals: { 'alipay.trade.refund': 'no spaces' } },
      ]) {
        const a = await setFaults(kit, bad);
        expect(a).toMatchObject({ status: 400, body: { status: 'fail', msg: expect.any(String) } });
      }
      // A refused post changes nothing.
      expect((await get()).faults).toEqual({ ...defaults, refundNotifications: 'drop' });
      expect((await setFaults(kit, {})).body.faults).toEqual(defaults);
      expect((await fetch(`${kit.url}/sandbox/faults`, { method: 'DELETE' })).status).toBe(405);
    });

    test('a payment whose notification is lost: the order query finishes it, with one callback', async () => {
      await setFaults(kit, { payNotifications: 'drop' });
      const prepayId = await newOrder(f, '3.21');
      await payByCode(kit, f, prepayId);
      // The follow-up's first query (PAYMENT_QUERY_SCHEDULE) is due.
      await kit.advance('300ms');
      const detail = await f.client.waitForPayment(prepayId);
      expect(detail).toMatchObject({ status: 'finish', paymentTime: expect.any(String) });
      await waitFor(() => callbacksOf(receiver.received, prepayId).length === 1, 'the finish callback');
      await settle();
      expect(callbacksOf(receiver.received, prepayId)).toEqual(['finish']);
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      expect(co).toMatchObject({ state: 'paid', transaction_id: expect.stringMatching(/^4200/), paid_via: 'query' });
      // Nothing was ever sent by the platform: it was the query.
      expect(await sandboxOf(kit.runtime.services)!.notifier.notificationsFor(await sandboxPrepayId(kit, co))).toEqual([]);
      expect(await jobByKey(kit, 'payment.reconcile', co.out_trade_no)).toMatchObject({ state: 'done', result: 'paid' });
    });

    test('a query and a notification of the same payment, in either order: one transition, one callback', async () => {
      // Query first (the notification is lost), then the notification arrives late.
      await setFaults(kit, { payNotifications: 'drop' });
      const late = await newOrder(f, '1.11');
      await payByCode(kit, f, late);
      await kit.advance('300ms');
      expect((await f.client.waitForPayment(late)).status).toBe('finish');
      const lateCo = (await kit.runtime.services.payments.state(late)).channelOrders[0];
      await sandboxPost(kit.url, '/renotify', { prepayId: await sandboxPrepayId(kit, lateCo) });
      await waitFor(
        async () => (await sandboxOf(kit.runtime.services)!.notifier.notificationsFor(await sandboxPrepayId(kit, lateCo)))[0]?.state === 'acked',
        'the late notification acknowledged',
      );
      // The first to record the payment says how it was learned of; the late notification changes nothing.
      expect((await kit.runtime.services.payments.state(late)).channelOrders[0].paid_via).toBe('query');

      // Notification first, then the query runs anyway (made due again by hand).
      await setFaults(kit, {});
      const early = await newOrder(f, '2.22');
      await payByCode(kit, f, early);
      expect((await f.client.waitForPayment(early)).status).toBe('finish');
      const earlyCo = (await kit.runtime.services.payments.state(early)).channelOrders[0];
      const { jobs } = kit.runtime.services;
      await jobs.enqueue(kit.runtime.db.db, { queue: 'payment.reconcile', key: earlyCo.out_trade_no, ref: early }, 'rearm');
      jobs.wake('payment.reconcile');
      await waitFor(async () => (await jobByKey(kit, 'payment.reconcile', earlyCo.out_trade_no))?.state === 'done', 'the query job');

      // Both at the same moment: lost notification, then the query and three late copies race.
      await setFaults(kit, { payNotifications: 'drop' });
      const raced = await newOrder(f, '3.33');
      await payByCode(kit, f, raced);
      const racedCo = (await kit.runtime.services.payments.state(raced)).channelOrders[0];
      await jobs.enqueue(kit.runtime.db.db, { queue: 'payment.reconcile', key: racedCo.out_trade_no, ref: raced }, 'rearm');
      jobs.wake('payment.reconcile');
      const racedAt = await sandboxPrepayId(kit, racedCo);
      await Promise.all([1, 2, 3].map(() => sandboxPost(kit.url, '/renotify', { prepayId: racedAt })));
      expect((await f.client.waitForPayment(raced)).status).toBe('finish');

      await waitFor(() => [late, early, raced].every((id) => callbacksOf(receiver.received, id).length >= 1), 'the callbacks');
      await settle();
      for (const id of [late, early, raced]) {
        expect(callbacksOf(receiver.received, id)).toEqual(['finish']);
        expect((await kit.runtime.services.callbacks.history(id)).map((c) => c.status)).toEqual(['finish']);
      }
    });

    test('a refund whose notification is lost: the refund query completes it, with one refunded callback', async () => {
      const prepayId = await paidOrder();
      await setFaults(kit, { refundNotifications: 'drop' });
      expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
      await refunded(prepayId);
      await waitFor(() => callbacksOf(receiver.received, prepayId).length === 2, 'the refunded callback');
      await settle();
      expect(callbacksOf(receiver.received, prepayId)).toEqual(['finish', 'refunded']);
      expect((await kit.runtime.services.payments.state(prepayId)).refund).toMatchObject({ state: 'success', refund_id: expect.stringMatching(/^50/) });
      expect(await jobByKey(kit, 'refund.follow', prepayId)).toMatchObject({ state: 'done', result: 'refunded' });
    });

    test('a refund call lost on the way: 4.6 answers 503, then the service completes the refund by itself', async () => {
      const prepayId = await paidOrder();
      await setFaults(kit, { refunds: 'hold' });
      // The clock moves only as the test moves it: past the held call's time limit once the call is held.
      kit.clock.freeze();
      const before = refundCalls();
      const answer = payApi.refund(f.client, prepayId, token);
      await waitFor(() => refundCalls() > before, 'the refund call held by the sandbox');
      // Past its time limit: a quarter of it at a time until 4.6 answers (on API v3 the main domain gets half of
      // it and the backup domain, held too, the rest). Never as far as the point where a new request takes the
      // refund over (PAY_GATEWAY_TIMEOUT + 1 s after it was claimed, the clock frozen since): a busy service that
      // answers late must not find the clock past it, or the request below would be a takeover, not a 409.
      const heldLimit = GATEWAY_TIMEOUT_MS + GATEWAY_TIMEOUT_MS / 4;
      let advanced = 0;
      let answered = false;
      void answer.then(
        () => (answered = true),
        () => (answered = true),
      );
      await waitFor(() => {
        if (answered) return true;
        if (advanced < heldLimit) kit.clock.advance(GATEWAY_TIMEOUT_MS / 4);
        advanced += GATEWAY_TIMEOUT_MS / 4;
        return false;
      }, 'the held refund call given up');
      const lost = await answer;
      expect(lost).toMatchObject({
        httpStatus: 503,
        body: { status: 'fail', error: 'channel_unavailable', msg: expect.stringMatching(/completes it on its own/) },
      });
      expect((await kit.runtime.services.payments.state(prepayId)).refund).toMatchObject({ state: 'requesting' });
      // While the service is on it, another request is told so; it starts no second refund.
      expect(await payApi.refund(f.client, prepayId, token)).toMatchObject({ httpStatus: 409, body: { error: 'refund_in_progress' } });
      await setFaults(kit, {});
      kit.clock.resume();
      await refunded(prepayId);
      await waitFor(() => callbacksOf(receiver.received, prepayId).length === 2, 'the refunded callback');
      await settle();
      expect(callbacksOf(receiver.received, prepayId)).toEqual(['finish', 'refunded']);
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      const atChannel = await sandboxTables(kit)
        .selectFrom('sandbox_refunds')
        .selectAll()
        .where('prepay_id', '=', await sandboxPrepayId(kit, co))
        .execute();
      expect(atChannel).toHaveLength(1);
    });

    test('a channel order half-created by a crash is resumed at once, under the same out_trade_no', async () => {
      const { runtime } = kit;
      const provider = (runtime.services.payments.channelOrders as any).providers.get('SocialNative');
      for (const placedBeforeTheCrash of [false, true]) {
        const prepayId = await newOrder(f, '4.56');
        const order = (await runtime.services.prepay.find(prepayId))!;
        const now = Date.now();
        const row = {
          out_trade_no: `crash${placedBeforeTheCrash ? 1 : 0}${now}`,
          prepay_id: prepayId,
          channel: 'SocialNative',
          trade_type: 'NATIVE',
          sign_type: provider.signType(),
          open_id: null,
          profit_sharing: 0,
          state: 'creating' as const,
          total_cents: order.total_cents,
          merchant_json: JSON.stringify(provider.merchant(SOCIAL_PARAMS, 'scan')),
          channel_prepay_id: null,
          code_url: null,
          answer_json: null,
          transaction_id: null,
          paid_at: null,
          created_at: now,
          updated_at: now,
        };
        await runtime.db.db.insertInto('pay_channel_orders').values(row).execute();
        if (placedBeforeTheCrash) {
          // The platform got the unified order; the answer was lost with the process.
          expect((await provider.placeOrder(row, { ...order, display_name: 'Corner Shop' })).ok).toBe(true);
        }
        // Resumed at once: the clock stands still, so no follow-up's schedule can have done it.
        kit.clock.freeze();
        const { args } = await f.client.socialPayNative(prepayId);
        kit.clock.resume();
        const cos = (await runtime.services.payments.state(prepayId)).channelOrders;
        expect(cos).toHaveLength(1);
        expect(cos[0]).toMatchObject({ out_trade_no: row.out_trade_no, state: 'open', code_url: args.code_url });
        expect((await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url })).status).toBe(200);
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      }
    });

    test.each([
      ['on the sub-merchant', 'sub'],
      ['inherited from the parent', 'parent'],
    ] as const)('card network, parameters %s: mini-program payment and refund end to end, with callbacks', async (_what, where) => {
      const g = await payFixture(kit);
      await g.client.setPaymentParams(where === 'sub' ? g.subId : g.parentId, 'SocialCardNetworkBizSmall', {
        ...CARD_PARAMS,
        notifyCallbackUrl: `${receiver.url}/card`,
      });
      const prepayId = await newOrder(g, '66.60');
      const openId = await sandboxOpenId(kit.url, `card-payer-${where}`, { appid: kit.runtime.config.MP_APPID!, secret: kit.runtime.config.MP_SECRET! });
      const { args } = await g.client.socialPay(prepayId, openId);
      expect((await sandboxPost(kit.url, '/pay', { prepayId: args.package.slice('prepay_id='.length), openId })).status).toBe(200);
      expect((await g.client.waitForPayment(prepayId)).status).toBe('finish');
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
      expect(co).toMatchObject({ channel: 'SocialCardNetworkBizSmall', state: 'paid' });
      expect(JSON.parse(co.merchant_json)).toMatchObject({ mch_id: CARD_PARAMS.cardNetworkBizMchId, device_info: CARD_PARAMS.terminalId });

      const cardToken = (await g.client.login(g.subId, g.pw)).loginToken;
      expect(await g.client.refund(prepayId, cardToken)).toEqual({ version: 1, status: 'success' });
      await refunded(prepayId, g.client);
      await waitFor(() => callbacksOf(receiver.received, prepayId).length === 2, 'both callbacks');
      await settle();
      expect(callbacksOf(receiver.received, prepayId)).toEqual(['finish', 'refunded']);
      expect(receiver.received.filter((r) => r.url.startsWith('/card') && JSON.parse(r.body).prepayId === prepayId)).toHaveLength(2);
    });
  },
  { protocols: BOTH_PROTOCOLS },
);

describeEachBackend(
  'an order paid just before it expires',
  (backend) => {
    const TTL_MS = 6_000;
    let kit: TestKit;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    beforeAll(async () => {
      // Queries far apart: only the close right before expiry can find the payment.
      kit = await startTestKit(backend, { ORDER_TTL: `${TTL_MS}ms`, EXPIRY_SWEEP_INTERVAL: '100ms', PAYMENT_QUERY_SCHEDULE: '1h', WAIT_FOR_FINISH_HOLD: '1s' });
      receiver = await startReceiver();
    });
    afterEach(() => kit.clock.resume());
    afterAll(async () => {
      await kit.close();
      await receiver.close();
    });

    test('with its notification lost, it ends finish, not cancel, with one callback', async () => {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      await setFaults(kit, { payNotifications: 'drop' });
      // The clock moves only as the test moves it: the payment lands 1 s before expiry, however long 4.3 and the sandbox's pay take.
      kit.clock.freeze();
      const prepayId = await newOrder(f, '9.99');
      const seen: string[] = [];
      const waiting = f.client.waitForPayment(prepayId, { onUpdate: (d) => seen.push(d.status) });
      await heldCalls(kit, 1);
      await kit.advance(TTL_MS - 1_000);
      await payByCode(kit, f, prepayId);
      expect((await kit.runtime.services.prepay.find(prepayId))!.status).toBe('active');
      // Expiry: the close finds the order paid.
      await kit.advance('1s');
      const detail = await waiting;
      expect(detail).toMatchObject({ status: 'finish', paymentTime: expect.any(String) });
      expect(seen).not.toContain('cancel');
      await waitFor(() => callbacksOf(receiver.received, prepayId).length === 1, 'the finish callback');
      // Nothing more, the platform's duplicate notification (200 ms after an acknowledgement) included.
      await kit.advance('500ms');
      expect(callbacksOf(receiver.received, prepayId)).toEqual(['finish']);
      expect((await kit.runtime.services.prepay.find(prepayId))!.status).toBe('finish');
      // Found by the order query that follows the close answered "paid" right before expiry.
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0]).toMatchObject({ state: 'paid', paid_via: 'query' });
      await setFaults(kit, {});
    });

    test('unpaid, it is cancelled and its channel order closed at the channel', async () => {
      const f = await payFixture(kit);
      const prepayId = await newOrder(f, '9.98');
      const { args } = await f.client.socialPayNative(prepayId);
      const waiting = f.client.waitForPayment(prepayId);
      await heldCalls(kit, 1);
      await kit.advance(TTL_MS);
      const last = await waiting;
      expect(last.status).toBe('cancel');
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].state).toBe('closed');
      expect((await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url })).status).toBe(409);
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
