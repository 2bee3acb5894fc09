/**
 * The console router over real HTTP on both databases: cookie login of both merchant levels, what
 * each login sees (a parent its sub-merchants, a sub-merchant only itself, nobody another app's),
 * the order story (with how each payment was learned of), callbacks, resend and recover through
 * the signed public API, refusals.
 */
import { startTestKit, type TestKit } from '../support/kit';
import { describeEachBackend } from '../support/backends';
import { chinaDate } from '../../src/reconciliation/china-day';
import { PageClient } from '../support/page-client';
import { newOrder, payByCode, payFixture, sandboxPost, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

/** A tiny browser of the console: keeps its cookie, sends JSON. */
class Desk extends PageClient {
  constructor(base: string) {
    super(`${base}/console/api`);
  }
}

describeEachBackend('console router', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  let sibling: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let up = false;
  const day = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    kit = await startTestKit(backend, {
      CALLBACK_RETRY_SCHEDULE: Array(12).fill('20ms').join(','),
      SANDBOX_REFUND_DELAY: '100ms',
      SANDBOX_PROFIT_SHARING_DELAY: '100ms',
      PROFIT_SHARING_QUERY_SCHEDULE: '100ms,200ms,300ms',
      // Soon enough to find a payment whose notification was lost, late enough not to beat one that comes.
      PAYMENT_QUERY_SCHEDULE: '2s,500ms,1s',
    });
    receiver = await startReceiver(() => (up ? { body: 'OK' } : { status: 500, body: 'down' }));
    f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
    sibling = (
      await f.client.createMerchant({ type: 'subMerchant', parameters: { displayName: 'Sibling', pw: f.pw, appId: f.appId, parentMerchantId: f.parentId } })
    ).data.id;
  });
  // Stopping waits for runs in flight (a refund follow-up, a delivery): more than Jest's 5 s on a busy machine.
  afterAll(async () => {
    await kit.close();
    await receiver.close();
  }, 30_000);

  test('a parent sees its sub-merchants’ orders and their story; a sub-merchant only its own; another app’s merchant nothing', async () => {
    const mine = await newOrder(f, '5.00');
    const theirs = (await f.client.createPrepay({ subMerchantId: sibling, totalAmount: '7.00' })).prepayId;
    await payByCode(kit, f, mine);
    await waitFor(async () => (await f.client.callbacks({ prepayId: mine })).data.items[0]?.state === 'given_up', 'given up');

    const parent = new Desk(kit.url);
    const wrong = await parent.call('POST', '/login', { userId: f.parentId, pw: 'nope' });
    expect([wrong.status, wrong.body.error]).toEqual([401, 'login_failed']);
    const login = await parent.call('POST', '/login', { userId: f.parentId, pw: f.pw });
    expect(login.status).toBe(200);
    expect(login.body.session).toMatchObject({ merchantId: f.parentId, parentMerchantId: null, receiver: true });
    expect(login.body.session.merchants.map((m: { id: string }) => m.id).sort()).toEqual([f.parentId, f.subId, sibling].sort());
    expect(parent.cookie).toMatch(/^console_login=/);

    const all = await parent.call('GET', `/orders?day=${day()}&tz=0`);
    expect(all.body.orders.map((o: { prepayId: string }) => o.prepayId).sort()).toEqual([mine, theirs].sort());
    expect((await parent.call('GET', `/orders?day=${day()}&tz=0&status=finish`)).body.orders.map((o: { prepayId: string }) => o.prepayId)).toEqual([mine]);
    expect((await parent.call('GET', `/orders?day=${day()}&tz=0&subMerchantId=${sibling}`)).body.orders.map((o: { prepayId: string }) => o.prepayId)).toEqual([
      theirs,
    ]);
    expect((await parent.call('GET', `/orders?prepayId=${theirs}`)).body.orders).toHaveLength(1);
    expect((await parent.call('GET', '/orders?day=2000-01-01&tz=0')).body.orders).toEqual([]);
    expect((await parent.call('GET', '/orders?day=yesterday')).status).toBe(400);

    const story = (await parent.call('GET', `/orders/${mine}`)).body.order;
    expect(story.timeline.map((e: { kind: string }) => e.kind)).toEqual(['created', 'channelOrder', 'paid', 'callback']);
    expect(story.callbacks[0]).toMatchObject({ state: 'given_up', event: 'finish' });
    expect(story.callbacks[0].attempts).toHaveLength(13);
    expect(story.refundable).toBe(true);

    // Given up first; resend through the public API reaches the receiver once it is back.
    const cbs = (await parent.call('GET', '/callbacks?state=given_up')).body.callbacks;
    expect(cbs.map((c: { prepayId: string }) => c.prepayId)).toEqual([mine]);
    up = true;
    expect((await parent.call('POST', `/callbacks/${cbs[0].id}/resend`)).body.resent).toBe(true);
    await waitFor(async () => (await f.client.callbacks({ prepayId: mine })).data.items[0]?.state === 'delivered', 'delivered');
    // The console follows a resend by the order's callbacks.
    const followed = (await parent.call('GET', `/callbacks?prepayId=${mine}`)).body.callbacks;
    expect(followed.map((c: { id: string; state: string }) => [c.id, c.state])).toEqual([[cbs[0].id, 'delivered']]);
    const now = Date.now();
    const window = { since: new Date(now - 3_600_000).toISOString(), until: new Date(now + 60_000).toISOString() };
    expect((await parent.call('POST', '/callbacks/recover', window)).body.resent).toBe(0);

    // A sub-merchant sees only its own orders; a sibling's are "not found".
    const sub = new Desk(kit.url);
    expect((await sub.call('POST', '/login', { userId: f.subId, pw: f.pw })).body.session.merchants).toHaveLength(1);
    expect((await sub.call('GET', `/orders?day=${day()}&tz=0`)).body.orders.map((o: { prepayId: string }) => o.prepayId)).toEqual([mine]);
    expect((await sub.call('GET', `/orders/${theirs}`)).body.error).toBe('not_found');
    expect((await sub.call('GET', `/orders?prepayId=${theirs}`)).body.orders).toEqual([]);
    expect((await sub.call('GET', `/orders?day=${day()}&subMerchantId=${sibling}`)).body.error).toBe('not_found');

    // Another app's merchant sees none of it, not even by id.
    const stranger = await payFixture(kit);
    const other = new Desk(kit.url);
    await other.call('POST', '/login', { userId: stranger.parentId, pw: stranger.pw });
    expect((await other.call('GET', `/orders/${mine}`)).status).toBe(404);
    expect((await other.call('POST', `/callbacks/${cbs[0].id}/resend`)).body.error).toBe('not_found');
    expect((await other.call('GET', '/callbacks')).body.callbacks).toEqual([]);
    expect((await other.call('GET', `/callbacks?prepayId=${mine}`)).body.error).toBe('not_found');

    // The refund goes through 4.6 with the parent's own login token.
    const refunded = await parent.call('POST', `/orders/${mine}/refund`);
    expect(refunded.status).toBe(200);
    expect(refunded.body.order.refund).toMatchObject({ amount: '5.00' });
    expect((await parent.call('POST', `/orders/${theirs}/refund`)).body.error).toBe('order_not_paid');

    // Logging out revokes the token: the old cookie no longer works.
    const old = parent.cookie;
    await parent.call('POST', '/logout');
    parent.cookie = old;
    const after = await parent.call('GET', '/orders');
    expect([after.status, after.body.error]).toEqual([401, 'login_invalid']);
    expect((await parent.call('GET', '/session')).body).toMatchObject({ session: null });
  });

  test('an order’s profit-sharing split and its receiver’s result are on its page and its timeline', async () => {
    up = true;
    await kit.runtime.services.merchants.setContracted(f.parentId, true);
    const partner = { type: 'MERCHANT_ID', account: '1900000501', name: 'Partner Trading Co', relationType: 'PARTNER' } as const;
    await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...partner });
    const prepayId = await newOrder(f, '100.00');
    const { args } = await f.client.socialPayApp(prepayId, { enableProfitSharing: true });
    expect((await sandboxPost(kit.url, '/pay', { prepayId: args.prepayid })).status).toBe(200);
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    await f.client.shareProfit({
      prepayId,
      outOrderNo: 'split-1',
      receivers: [{ type: partner.type, account: partner.account, amount: '20.00', description: 'partner share' }],
    });
    await f.client.waitForProfitSharing(prepayId, 'split-1', { intervalMs: 100, timeoutMs: 15_000 });

    const desk = new Desk(kit.url);
    await desk.call('POST', '/login', { userId: f.subId, pw: f.pw });
    const story = (await desk.call('GET', `/orders/${prepayId}`)).body.order;
    expect(story.splits).toEqual([
      expect.objectContaining({
        outOrderNo: 'split-1',
        kind: 'split',
        state: 'finished',
        amount: '20.00',
        receivers: [expect.objectContaining({ account: partner.account, amount: '20.00', result: 'success' })],
      }),
    ]);
    const kinds = story.timeline.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['paid', 'sharingRequested', 'sharingResult']));
    expect(kinds.indexOf('paid')).toBeLessThan(kinds.indexOf('sharingRequested'));
  });

  test('a payment’s timeline entry says how the kit learned of it: the notification, or the order query when the notification is lost', async () => {
    const setFaults = (faults: object) =>
      fetch(`${kit.url}/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
    const notified = await newOrder(f, '1.00');
    const notifiedPay = await payByCode(kit, f, notified);
    expect((await f.client.waitForPayment(notified)).status).toBe('finish');
    let queried = '';
    expect((await setFaults({ payNotifications: 'drop' })).status).toBe(200);
    try {
      queried = await newOrder(f, '2.00');
      await payByCode(kit, f, queried);
      expect((await f.client.waitForPayment(queried)).status).toBe('finish');
    } finally {
      await setFaults({});
    }

    const desk = new Desk(kit.url);
    await desk.call('POST', '/login', { userId: f.subId, pw: f.pw });
    const paid = async (prepayId: string) =>
      (await desk.call('GET', `/orders/${prepayId}`)).body.order.timeline.filter((e: { kind: string }) => e.kind === 'paid');
    expect(await paid(notified)).toEqual([
      expect.objectContaining({ cause: 'notification', detail: expect.objectContaining({ transactionId: notifiedPay.transactionId }) }),
    ]);
    expect(await paid(queried)).toEqual([expect.objectContaining({ cause: 'query' })]);
    // 4.2 keeps its specified shape: how the payment was learned of is the console's alone.
    expect(JSON.stringify(await f.client.prepayDetail(queried))).not.toMatch(/query|notification|paid_?via/i);
  });

  test('reconciliation: each login sees the reconciled days and its own merchants’ differences, open ones first', async () => {
    const setFaults = async (faults: object) => {
      const res = await fetch(`${kit.url}/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
      expect(res.status).toBe(200);
    };
    const paid = async (subMerchantId: string, amount: string) => {
      const prepayId = (await f.client.createPrepay({ subMerchantId, totalAmount: amount })).prepayId;
      await payByCode(kit, f, prepayId);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      return prepayId;
    };
    const tradeNo = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].out_trade_no;
    const mine = await paid(f.subId, '8.00');
    const theirs = await paid(sibling, '9.00');
    const today = chinaDate(Date.now());
    await setFaults({ billExtraPayments: 1, billAmountChanged: [await tradeNo(mine)], billOmitted: [await tradeNo(theirs)] });
    try {
      await kit.runtime.services.reconciliation.reconcile(today, 'SocialNative');
    } finally {
      await setFaults({});
    }

    const parent = new Desk(kit.url);
    await parent.call('POST', '/login', { userId: f.parentId, pw: f.pw });
    const days = (await parent.call('GET', '/reconciliation')).body.days;
    expect(days[0]).toMatchObject({ date: today, channel: 'SocialNative', state: 'done' });
    expect(days[0].byKind).toMatchObject({ amount_mismatch: 1, kit_only: 1, channel_only: 1 });
    expect(days[0].byResolution).toMatchObject({ open: 2, pending_next_day: 1 });
    expect(days[0].open).toBe(2);
    const [report] = (await parent.call('GET', `/reconciliation/${today}`)).body.reports;
    expect(report).toMatchObject({ date: today, channel: 'SocialNative' });
    const diffs = report.differences;
    expect(diffs).toEqual(
      expect.arrayContaining([
        {
          kind: 'amount_mismatch',
          outTradeNo: await tradeNo(mine),
          prepayId: mine,
          kit: { status: 'finish', amount: '8.00' },
          channel: { status: 'SUCCESS', amount: '8.01' },
          resolution: 'open',
        },
        expect.objectContaining({ kind: 'kit_only', prepayId: theirs, channel: null, resolution: 'pending_next_day' }),
        expect.objectContaining({ kind: 'channel_only', kit: null, resolution: 'open' }),
      ]),
    );
    const open = diffs.map((d: { resolution: string }) => d.resolution === 'open');
    expect(open).toEqual([...open].sort((a: boolean, b: boolean) => Number(b) - Number(a)));

    // A sub-merchant sees only its own orders' differences (a line the kit does not know is the channel account's: the parent's).
    const sub = new Desk(kit.url);
    await sub.call('POST', '/login', { userId: f.subId, pw: f.pw });
    const subDays = (await sub.call('GET', '/reconciliation')).body.days;
    expect(subDays[0]).toMatchObject({ date: today, differences: 1, open: 1, byKind: { amount_mismatch: 1 } });
    const subDiffs = (await sub.call('GET', `/reconciliation/${today}`)).body.reports[0].differences;
    expect(subDiffs.map((d: { kind: string; prepayId?: string }) => [d.kind, d.prepayId])).toEqual([['amount_mismatch', mine]]);

    // Each login's share of the bill's totals, as `kit reconcile` prints a bill's: the sub-merchant's
    // orders (at the bill's amounts), the parent's those and its other shops' and the lines of its account.
    type Totals = { payments: { count: number; amount: string }; refunds: { count: number; amount: string }; fees: string; net: string };
    const subTotals: Totals = (await sub.call('GET', `/reconciliation/${today}`)).body.reports[0].totals;
    const parentTotals: Totals = report.totals;
    const cents = (a: string) => Math.round(Number(a) * 100);
    for (const t of [subTotals, parentTotals]) {
      expect(t.payments.count).toBeGreaterThanOrEqual(1);
      expect(cents(t.net)).toBe(cents(t.payments.amount) - cents(t.refunds.amount) - cents(t.fees));
    }
    // The parent's: its sub-merchant's, the sibling's orders in the bill (not the one left out) and the line only the channel has.
    expect(parentTotals.payments.count).toBeGreaterThanOrEqual(subTotals.payments.count + 1);
    expect(cents(parentTotals.payments.amount)).toBeGreaterThan(cents(subTotals.payments.amount));

    // Another app's merchant (its own channel account) sees the day, with none of these differences.
    const stranger = await payFixture(kit, { socialMchId: '1230000999' });
    const other = new Desk(kit.url);
    await other.call('POST', '/login', { userId: stranger.parentId, pw: stranger.pw });
    expect((await other.call('GET', '/reconciliation')).body.days[0]).toMatchObject({ date: today, differences: 0, open: 0, byKind: {} });
    expect((await other.call('GET', `/reconciliation/${today}`)).body.reports[0]).toMatchObject({
      differences: [],
      totals: { payments: { count: 0, amount: '0.00' }, refunds: { count: 0, amount: '0.00' }, fees: '0.00', net: '0.00' },
    });

    // A day not reconciled is "not found", a date that is none a 400, no login a 401.
    expect((await parent.call('GET', '/reconciliation/2000-01-01')).body.error).toBe('not_found');
    const bad = await parent.call('GET', '/reconciliation/2026-02-30');
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_request']);
    expect((await new Desk(kit.url).call('GET', '/reconciliation')).status).toBe(401);
  });

  test('Reconcile now runs a day as the daily job does: a report at once, nothing new the second time, "not ready" while the channel makes its bill', async () => {
    const setFaults = async (faults: object) => {
      const res = await fetch(`${kit.url}/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
      expect(res.status).toBe(200);
    };
    up = true;
    const today = chinaDate(Date.now());
    const prepayId = (await f.client.createPrepay({ subMerchantId: f.subId, totalAmount: '6.00' })).prepayId;
    await payByCode(kit, f, prepayId);
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    const tradeNo = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].out_trade_no;

    const desk = new Desk(kit.url);
    await desk.call('POST', '/login', { userId: f.parentId, pw: f.pw });
    await setFaults({ billAmountChanged: [tradeNo] });
    let first;
    try {
      first = await desk.call('POST', `/reconciliation/${today}/run`);
    } finally {
      await setFaults({});
    }
    expect(first.status).toBe(200);
    // Every channel with a bill: Alipay's (the sandbox plays it) has no merchant here, so nothing to read.
    expect(first.body.runs).toEqual([
      { channel: 'SocialNative', outcome: 'done' },
      { channel: 'Alipay', outcome: 'done' },
    ]);
    const mine = async () =>
      (
        (await desk.call('GET', `/reconciliation/${today}`)).body.reports[0].differences as Array<{ outTradeNo: string; kind: string; resolution: string }>
      ).filter((d) => d.outTradeNo === tradeNo);
    expect(await mine()).toEqual([expect.objectContaining({ kind: 'amount_mismatch', resolution: 'open' })]);
    const days = (await desk.call('GET', '/reconciliation')).body.days;
    expect(days.find((d: { date: string }) => d.date === today)).toMatchObject({ state: 'done' });

    // Again, now that the bill agrees: what the first run found stays as it was found (the daily job's idempotence).
    const before = (await desk.call('GET', `/reconciliation/${today}`)).body.reports;
    expect((await desk.call('POST', `/reconciliation/${today}/run`)).body.runs).toEqual([
      { channel: 'SocialNative', outcome: 'done' },
      { channel: 'Alipay', outcome: 'done' },
    ]);
    // (The totals are the bill's as read last: its amount is the agreeing one now.)
    const differencesOf = (reports: Array<{ channel: string; differences: unknown[] }>) => reports.map((r) => [r.channel, r.differences]);
    expect(differencesOf((await desk.call('GET', `/reconciliation/${today}`)).body.reports)).toEqual(differencesOf(before));

    // A bill the channel is still making is "not ready", not a failure; a done day stays done.
    await setFaults({ bills: 'creating' });
    try {
      const notReady = await desk.call('POST', `/reconciliation/${today}/run`);
      expect(notReady.status).toBe(200);
      expect(notReady.body.runs).toEqual([
        { channel: 'SocialNative', outcome: 'not_ready', error: expect.stringContaining('not ready') },
        { channel: 'Alipay', outcome: 'done' },
      ]);
    } finally {
      await setFaults({});
    }
    expect((await desk.call('GET', '/reconciliation')).body.days.find((d: { date: string }) => d.date === today)).toMatchObject({ state: 'done' });

    // A sub-merchant's login may ask too; a day that has not begun, a date that is none, no login: refused.
    const sub = new Desk(kit.url);
    await sub.call('POST', '/login', { userId: f.subId, pw: f.pw });
    expect((await sub.call('POST', `/reconciliation/${today}/run`)).body.runs).toEqual([
      { channel: 'SocialNative', outcome: 'done' },
      { channel: 'Alipay', outcome: 'done' },
    ]);
    const tomorrow = chinaDate(Date.now() + 86_400_000);
    const future = await desk.call('POST', `/reconciliation/${tomorrow}/run`);
    expect([future.status, future.body.error]).toEqual([400, 'invalid_request']);
    expect((await desk.call('POST', '/reconciliation/2026-02-30/run')).status).toBe(400);
    expect((await new Desk(kit.url).call('POST', `/reconciliation/${today}/run`)).status).toBe(401);
  });
});
