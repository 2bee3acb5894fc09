/**
 * Profit sharing (4.8) at its edges, through real HTTP against the sandbox, on every backend: no
 * split while a refund of the order is requested or done; a split that a refund overtook on its
 * way to the channel ends (receivers `closed`, its amount given back) instead of being retried for
 * ever; and the splits of one order reach the channel in the order they were accepted, so a later
 * split with `finish` cannot overtake an earlier one.
 */
import type { IncomingMessage } from 'node:http';
import type { KitClient, SplitRequest } from '@kit/shared';
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit, sandboxTables } from '../support/kit';
import { newOrder, payFixture, sandboxPost, type PayFixture, sandboxPrepayId } from '../support/payments';
import { waitFor } from '../support/wait';

const PARTNER = { type: 'MERCHANT_ID', account: '1900000601', name: 'Partner Trading Co', relationType: 'PARTNER' } as const;
const STAFF = { type: 'PERSONAL_OPENID', account: 'oStaffMember00000000000601', relationType: 'STAFF' } as const;
/** PAY_GATEWAY_TIMEOUT: the time limit of a channel call, which the tests of a held split move the clock past. */
const GATEWAY_TIMEOUT_MS = 3_000;
/** SANDBOX_REFUND_DELAY: a refund stays accepted, not yet done, until the clock has moved this far. */
const REFUND_DELAY_MS = 3_000;
/** A split call to the platform: API v3 (`POST …/v3/profitsharing/orders`) or protocol v2 (`…/secapi/pay/multiprofitsharing`, `…/profitsharing`). */
const SPLIT_CALL = /\/v3\/profitsharing\/orders$|\/secapi\/pay\/(multi)?profitsharing$/;

const sharing = {
  split: (c: KitClient, body: unknown) => c.call<any>('POST', '/submerchant-pay/profitSharing/orders', { body }),
  finish: (c: KitClient, body: unknown) => c.call<any>('POST', '/submerchant-pay/profitSharing/finish', { body }),
};

describeEachBackend(
  'profit sharing: refunds and the order of splits',
  (backend) => {
    jest.setTimeout(120_000);
    let kit: TestKit;
    let f: PayFixture;
    let seq = 0;
    const no = (tag = 'S') => `${tag}${Date.now().toString(36)}${++seq}`;
    /** Split calls that reached the service (the sandbox is served by it), held or not. */
    let splitCalls = 0;

    beforeAll(async () => {
      kit = await startTestKit(backend, {
        PAY_GATEWAY_TIMEOUT: `${GATEWAY_TIMEOUT_MS}ms`,
        SANDBOX_PROFIT_SHARING_DELAY: '300ms',
        PROFIT_SHARING_QUERY_SCHEDULE: '200ms,300ms,500ms',
        SANDBOX_REFUND_DELAY: `${REFUND_DELAY_MS}ms`,
      });
      // Express has taken its mount path off `url` by now: `originalUrl` is the whole of it.
      kit.runtime.server.on('request', (req: IncomingMessage & { originalUrl?: string }) => {
        if (req.method === 'POST' && SPLIT_CALL.test((req.originalUrl ?? req.url ?? '').split('?')[0])) splitCalls++;
      });
      f = await payFixture(kit);
      await kit.runtime.services.merchants.setContracted(f.parentId, true);
      await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...PARTNER });
      await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...STAFF });
    });
    // The clock moves only as a test moves it: a refund stays requested, a lost call stays unanswered and a split
    // waits for its follow-up until the test says, however busy the machine is.
    beforeEach(() => kit.clock.freeze());
    afterEach(async () => {
      kit.clock.resume();
      await faults({});
    });
    afterAll(() => kit.close());

    const faults = async (set: object) => expect((await sandboxPost(kit.url, '/faults', set)).status).toBe(200);
    const sharedPaidOrder = async (amount: string) => {
      const prepayId = await newOrder(f, amount);
      const { args } = await f.client.socialPayApp(prepayId, { enableProfitSharing: true });
      expect((await sandboxPost(kit.url, '/pay', { prepayId: args.prepayid })).status).toBe(200);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      return prepayId;
    };
    const split = (prepayId: string, who: typeof PARTNER | typeof STAFF, amount: string, extra: Partial<SplitRequest> = {}): SplitRequest => ({
      prepayId,
      outOrderNo: no(),
      receivers: [{ type: who.type, account: who.account, amount, description: 'share' }],
      ...extra,
    });
    const atChannel = async (prepayId: string) => {
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.state === 'paid')!;
      return sandboxTables(kit)
        .selectFrom('sandbox_ps_orders')
        .select(['out_order_no', 'kind', 'created_at'])
        .where('prepay_id', '=', await sandboxPrepayId(kit, co))
        .orderBy('created_at')
        .execute();
    };
    const refund = async (prepayId: string) => {
      const token = (await f.client.login(f.subId, f.pw)).loginToken;
      expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
    };
    /**
     * Moves the clock to each next run of the order's profit-sharing follow-ups and lets it run, until the split
     * has ended: their waits (a lost call's time to be answered, PROFIT_SHARING_QUERY_SCHEDULE, the results'
     * delay) are not waited out.
     */
    const finished = (prepayId: string, outOrderNo: string) =>
      waitFor(async () => {
        const d = await f.client.profitSharingOrder(prepayId, outOrderNo);
        if (d.data.state === 'finished') return d;
        const next = await kit.runtime.db.db
          .selectFrom('jobs')
          .select('next_at')
          .where('queue', '=', 'profit-sharing.follow')
          .where('ref', '=', prepayId)
          .where('state', '=', 'pending')
          .where('lease_token', 'is', null)
          .orderBy('next_at')
          .executeTakeFirst();
        if (next) kit.clock.advanceTo(next.next_at);
        await kit.settle();
        return undefined;
      }, `split ${outOrderNo} to end`);
    /**
     * A split whose call the sandbox holds (`splits: "hold"`): the clock moved past the call's time limit once the
     * call is held (on API v3 the main domain gets half of it and the backup domain, held too, the rest), and no
     * further, so the follow-up's first run (a second later) is still to come. Answers 4.8's answer.
     */
    const heldSplit = async (body: SplitRequest) => {
      const before = splitCalls;
      const answer = f.client.shareProfit(body);
      let answered = false;
      void answer.then(
        () => (answered = true),
        () => (answered = true),
      );
      await waitFor(() => splitCalls > before, 'the split call held by the sandbox');
      let moved = 0;
      await waitFor(() => {
        if (answered) return true;
        const step = moved < GATEWAY_TIMEOUT_MS ? GATEWAY_TIMEOUT_MS / 4 : 1;
        kit.clock.advance(step);
        moved += step;
        return false;
      }, 'the held split call given up');
      return answer;
    };

    test('while a refund is requested, and once it is done, a split or finish is refused at once and nothing reaches the channel', async () => {
      const prepayId = await sharedPaidOrder('20.00');
      await refund(prepayId);
      // Accepted by the channel, not done yet (SANDBOX_REFUND_DELAY: the clock has not moved).
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      const body = split(prepayId, PARTNER, '2.00');
      expect(await sharing.split(f.client, body)).toMatchObject({
        httpStatus: 409,
        body: { version: 1, status: 'fail', error: 'profit_sharing_refund_requested', code: 'E0064', msg: expect.stringContaining('refund') },
      });
      expect(await sharing.finish(f.client, { prepayId, outOrderNo: no('F'), description: 'done' })).toMatchObject({
        httpStatus: 409,
        body: { error: 'profit_sharing_refund_requested' },
      });
      expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('0.00');
      // Done by the platform (and notified) once its delay has passed.
      await kit.advance(REFUND_DELAY_MS);
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'the refund');
      expect(await sharing.split(f.client, body)).toMatchObject({ httpStatus: 409, body: { error: 'order_already_refunded' } });
      expect(await atChannel(prepayId)).toEqual([]);
    });

    test('a refund overtakes a split on its way to the channel: the split ends, receivers closed, its amount given back', async () => {
      const prepayId = await sharedPaidOrder('30.00');
      await faults({ splits: 'hold' });
      const body = split(prepayId, PARTNER, '5.00');
      try {
        // The call is lost on the way; the split is accepted all the same.
        expect((await heldSplit(body)).data.state).toBe('processing');
        expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('5.00');
        // The refund is requested before the split's next attempt, which waits for the clock.
        await refund(prepayId);
      } finally {
        await faults({});
      }
      const done = await finished(prepayId, body.outOrderNo);
      expect(done.data.receivers).toEqual([
        expect.objectContaining({ account: PARTNER.account, amount: '5.00', result: 'closed', failReason: expect.stringContaining('refund') }),
      ]);
      expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('0.00');
      expect(await atChannel(prepayId)).toEqual([]);
      // Asked again, the split says why it ended: the refund, requested or (once the clock has passed
      // SANDBOX_REFUND_DELAY while the split was followed) already done.
      const again = await sharing.split(f.client, body);
      expect(again.httpStatus).toBe(409);
      expect(['profit_sharing_refund_requested', 'order_already_refunded']).toContain(again.body.error);
    });

    test('a split the channel refuses because the order was refunded there (v2: ORDER_NOT_READY, v3: 400 INVALID_REQUEST): it ends, receivers closed, its amount given back', async () => {
      const prepayId = await sharedPaidOrder('25.00');
      // Refunded at the platform behind the kit's back (as from the merchant's own platform
      // account), so the kit lets the split go and only the channel's refusal can end it.
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.state === 'paid')!;
      const gateway = (kit.runtime.services.payments.channelOrders as any).providers.get(co.channel);
      const now = Date.now();
      const refundedThere = await gateway.refund(
        {
          prepay_id: prepayId,
          out_refund_no: no('R'),
          out_trade_no: co.out_trade_no,
          channel: co.channel,
          state: 'requested',
          refund_cents: co.total_cents,
          refund_id: null,
          requested_by: 'platform',
          app_id: f.appId,
          last_error: null,
          created_at: now,
          updated_at: now,
          completed_at: null,
        },
        co,
      );
      expect(refundedThere.ok).toBe(true);
      const body = split(prepayId, PARTNER, '3.00');
      const answer = await sharing.split(f.client, body);
      expect(answer).toMatchObject({ httpStatus: 502, body: { status: 'fail', error: 'channel_error', msg: expect.stringContaining('refunded') } });
      const done = await finished(prepayId, body.outOrderNo);
      expect(done.data.state).toBe('finished');
      expect(done.data.receivers).toEqual([
        expect.objectContaining({ account: PARTNER.account, amount: '3.00', result: 'closed', failReason: expect.stringContaining('refunded') }),
      ]);
      expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('0.00');
      expect(await atChannel(prepayId)).toEqual([]);
    });

    test('a later split with finish waits for an earlier one still on its way: both reach the channel, in order, and succeed', async () => {
      const prepayId = await sharedPaidOrder('40.00');
      await faults({ splits: 'hold' });
      const first = split(prepayId, PARTNER, '4.00');
      try {
        expect((await heldSplit(first)).data.state).toBe('processing');
      } finally {
        await faults({});
      }
      const last = split(prepayId, STAFF, '3.00', { finish: true });
      expect((await f.client.shareProfit(last)).data.state).toBe('processing');
      for (const b of [first, last]) {
        const done = await finished(prepayId, b.outOrderNo);
        expect(done.data.receivers.map((r) => r.result)).toEqual(['success']);
      }
      const sent = await kit.runtime.db.db.selectFrom('ps_requests').select(['id', 'out_order_no']).where('prepay_id', '=', prepayId).execute();
      const ids = new Map(sent.map((r) => [r.out_order_no, r.id]));
      expect((await atChannel(prepayId)).map((p) => p.out_order_no)).toEqual([ids.get(first.outOrderNo), ids.get(last.outOrderNo)]);
      expect((await f.client.profitSharingAmounts(prepayId)).data).toEqual({
        totalAmount: '40.00',
        sharedAmount: '7.00',
        maxShareAmount: '12.00',
        unfrozen: true,
      });
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
