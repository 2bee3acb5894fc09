/**
 * Profit sharing (4.8) through real HTTP against the sandbox, on every backend: the whole
 * flow, the 30 % rule (also under concurrency), idempotent `outOrderNo`, every refusal, finishing,
 * receivers closed by the channel, and the refund of a shared order.
 */
import type { KitClient, SplitRequest } from '@kit/shared';
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit, sandboxTables } from '../support/kit';
import { SOCIAL_PARAMS, newOrder, payApi, payFixture, sandboxPost, startReceiver, type PayFixture, sandboxPrepayId } from '../support/payments';
import { waitFor } from '../support/wait';

const PARTNER = { type: 'MERCHANT_ID', account: '1900000501', name: 'Partner Trading Co', relationType: 'PARTNER' } as const;
const STAFF = { type: 'PERSONAL_OPENID', account: 'oStaffMember00000000000001', relationType: 'STAFF' } as const;
/** SANDBOX_PROFIT_SHARING_DELAY: from a split accepted by the sandbox's platform to its receivers' results. */
const RESULTS_DELAY_MS = 1_000;
/** SANDBOX_REFUND_DELAY: from a refund accepted by the sandbox's platform to its completion and notification. */
const REFUND_DELAY_MS = 200;

const sharing = {
  split: (c: KitClient, body: unknown) => c.call<any>('POST', '/submerchant-pay/profitSharing/orders', { body }),
  finish: (c: KitClient, body: unknown) => c.call<any>('POST', '/submerchant-pay/profitSharing/finish', { body }),
  receiver: (c: KitClient, body: unknown) => c.call<any>('POST', '/submerchant-pay/profitSharing/receivers', { body }),
  amounts: (c: KitClient, prepayId: string) => c.call<any>('GET', `/submerchant-pay/profitSharing/amounts/${prepayId}`),
  detail: (c: KitClient, prepayId: string, outOrderNo: string) =>
    c.call<any>('GET', `/submerchant-pay/profitSharing/orders/${outOrderNo}`, { query: { prepayId } }),
};

describeEachBackend(
  'profit sharing',
  (backend) => {
    let kit: TestKit;
    let f: PayFixture;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let seq = 0;
    const no = (tag = 'S') => `${tag}${Date.now().toString(36)}${++seq}`;

    beforeAll(async () => {
      kit = await startTestKit(backend, {
        SANDBOX_PROFIT_SHARING_DELAY: `${RESULTS_DELAY_MS}ms`,
        // The first query is due before the results are: moving the clock by their delay brings both.
        PROFIT_SHARING_QUERY_SCHEDULE: '200ms,300ms,500ms',
        SANDBOX_REFUND_DELAY: `${REFUND_DELAY_MS}ms`,
      });
      receiver = await startReceiver();
      f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      await kit.runtime.services.merchants.setContracted(f.parentId, true);
      await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...PARTNER });
      await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...STAFF });
    });
    // The clock moves only as a test moves it: a split's results are pending until the test moves it past their
    // delay (a receiver removed meanwhile is removed before they are decided, however busy the machine is).
    beforeEach(() => kit.clock.freeze());
    afterEach(() => kit.clock.resume());
    afterAll(async () => {
      await kit.close();
      await receiver.close();
    });

    /** A paid order placed with profit sharing (4.5 enableProfitSharing), paid in the sandbox. */
    const sharedPaidOrder = async (amount = '100.00', g = f) => {
      const prepayId = await newOrder(g, amount);
      const { args } = await g.client.socialPayApp(prepayId, { enableProfitSharing: true });
      expect((await sandboxPost(kit.url, '/pay', { prepayId: args.prepayid })).status).toBe(200);
      expect((await g.client.waitForPayment(prepayId)).status).toBe('finish');
      return prepayId;
    };
    /** The split's results, decided by the platform once their delay has passed and read by the follow-up job. */
    const results = async (g: PayFixture, prepayId: string, outOrderNo: string) => {
      await kit.advance(RESULTS_DELAY_MS);
      return g.client.waitForProfitSharing(prepayId, outOrderNo, { intervalMs: 100 });
    };
    const split = (prepayId: string, amounts: Partial<Record<'partner' | 'staff', string>>, extra: Partial<SplitRequest> = {}): SplitRequest => ({
      prepayId,
      outOrderNo: no(),
      receivers: [
        ...(amounts.partner ? [{ type: PARTNER.type, account: PARTNER.account, amount: amounts.partner, description: 'partner share' }] : []),
        ...(amounts.staff ? [{ type: STAFF.type, account: STAFF.account, amount: amounts.staff, description: 'staff bonus' }] : []),
      ],
      ...extra,
    });

    test('the whole flow: split, follow the asynchronous results, finish, amounts', async () => {
      const prepayId = await sharedPaidOrder('100.00');
      expect((await f.client.profitSharingAmounts(prepayId)).data).toEqual({
        totalAmount: '100.00',
        sharedAmount: '0.00',
        maxShareAmount: '30.00',
        unfrozen: false,
      });
      const body = split(prepayId, { partner: '15.00', staff: '5.50' });
      expect(await f.client.shareProfit(body)).toEqual({ version: 1, status: 'success', data: { outOrderNo: body.outOrderNo, state: 'processing' } });
      // Results come later (the sandbox decides them 1 s after the split); right now they are pending.
      const first = await f.client.profitSharingOrder(prepayId, body.outOrderNo);
      expect(first.data).toMatchObject({ outOrderNo: body.outOrderNo, prepayId, state: 'processing' });
      expect(first.data.receivers.map((r) => r.result)).toEqual(['pending', 'pending']);
      const done = await results(f, prepayId, body.outOrderNo);
      expect(done.data.state).toBe('finished');
      expect(done.data.receivers).toEqual([
        {
          type: 'MERCHANT_ID',
          account: PARTNER.account,
          amount: '15.00',
          description: 'partner share',
          result: 'success',
          finishTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
        { type: 'PERSONAL_OPENID', account: STAFF.account, amount: '5.50', description: 'staff bonus', result: 'success', finishTime: expect.any(String) },
      ]);
      expect((await f.client.profitSharingAmounts(prepayId)).data).toEqual({
        totalAmount: '100.00',
        sharedAmount: '20.50',
        maxShareAmount: '30.00',
        unfrozen: false,
      });

      const fin = await f.client.finishProfitSharing({ prepayId, outOrderNo: no('F'), description: 'done sharing' });
      expect(fin.data.state).toBe('finished');
      expect((await f.client.profitSharingAmounts(prepayId)).data).toMatchObject({ sharedAmount: '20.50', unfrozen: true });
      // The platform released the rest: nothing of the order is frozen any more.
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.state === 'paid')!;
      const atChannel = await sandboxTables(kit)
        .selectFrom('sandbox_orders')
        .select('unfrozen_at')
        .where('prepay_id', '=', await sandboxPrepayId(kit, co))
        .executeTakeFirstOrThrow();
      expect(atChannel.unfrozen_at).not.toBeNull();
      // After finish, no more splits.
      const late = await sharing.split(f.client, split(prepayId, { staff: '1.00' }));
      expect(late).toMatchObject({ httpStatus: 409, body: { version: 1, status: 'fail', error: 'profit_sharing_finished' } });
    });

    test('an order placed with profit sharing through the merchant’s parameters (4.3), shared in one split that finishes', async () => {
      const g = await payFixture(kit);
      await kit.runtime.services.merchants.setContracted(g.subId, true);
      await g.client.setPaymentParams(g.subId, 'SocialNative', { profitSharing: true });
      await g.client.addProfitSharingReceiver({ merchantId: g.subId, ...PARTNER });
      const prepayId = await newOrder(g, '10.00');
      const { args } = await g.client.socialPayNative(prepayId);
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].profit_sharing).toBe(1);
      await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url });
      expect((await g.client.waitForPayment(prepayId)).status).toBe('finish');
      const body = {
        prepayId,
        outOrderNo: no(),
        receivers: [{ type: PARTNER.type, account: PARTNER.account, amount: '3.00', description: 'all of it' }],
        finish: true,
      };
      expect((await g.client.shareProfit(body)).data.state).toBe('processing');
      expect((await results(g, prepayId, body.outOrderNo)).data.receivers[0].result).toBe('success');
      expect((await g.client.profitSharingAmounts(prepayId)).data).toEqual({
        totalAmount: '10.00',
        sharedAmount: '3.00',
        maxShareAmount: '3.00',
        unfrozen: true,
      });
      expect(await sharing.split(g.client, { ...body, outOrderNo: no() })).toMatchObject({ httpStatus: 409, body: { error: 'profit_sharing_finished' } });
    });

    test('30 % of the amount, rounded down to the cent, exactly: accepted; one cent more: refused, and nothing is sent', async () => {
      const prepayId = await sharedPaidOrder('100.01');
      expect((await f.client.profitSharingAmounts(prepayId)).data.maxShareAmount).toBe('30.00');
      const tooMuch = await sharing.split(f.client, split(prepayId, { partner: '20.00', staff: '10.01' }));
      expect(tooMuch).toMatchObject({
        httpStatus: 409,
        body: { version: 1, status: 'fail', error: 'profit_sharing_limit_exceeded', code: 'E0060', msg: expect.stringContaining('30.00') },
      });
      expect((await f.client.shareProfit(split(prepayId, { partner: '20.00', staff: '10.00' }))).data.state).toBe('processing');
      const oneCent = await sharing.split(f.client, split(prepayId, { staff: '0.01' }));
      expect(oneCent).toMatchObject({ httpStatus: 409, body: { error: 'profit_sharing_limit_exceeded' } });
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.state === 'paid')!;
      expect(
        await sandboxTables(kit)
          .selectFrom('sandbox_ps_orders')
          .selectAll()
          .where('prepay_id', '=', await sandboxPrepayId(kit, co))
          .execute(),
      ).toHaveLength(1);
    });

    test('splits racing for the same order: together they never exceed 30 %', async () => {
      const prepayId = await sharedPaidOrder('50.00');
      // Each fits alone (10 % of 50.00); only three fit together.
      const answers = await Promise.all(Array.from({ length: 8 }, () => sharing.split(f.client, split(prepayId, { partner: '5.00' }))));
      const accepted = answers.filter((a) => a.httpStatus === 200);
      expect(accepted).toHaveLength(3);
      for (const a of answers.filter((x) => x.httpStatus !== 200)) expect(a.body.error).toBe('profit_sharing_limit_exceeded');
      expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('15.00');
      // Two that each fit alone but not together: exactly one is accepted.
      const other = await sharedPaidOrder('10.00');
      const pair = await Promise.all([sharing.split(f.client, split(other, { partner: '2.00' })), sharing.split(f.client, split(other, { staff: '2.00' }))]);
      expect(pair.map((a) => a.httpStatus).sort()).toEqual([200, 409]);
    });

    test('the same outOrderNo twice is one split; a different split under the same number is refused', async () => {
      const prepayId = await sharedPaidOrder('20.00');
      const body = split(prepayId, { partner: '2.00', staff: '1.00' });
      const answers = await Promise.all(Array.from({ length: 5 }, () => sharing.split(f.client, body)));
      for (const a of answers) expect(a).toMatchObject({ httpStatus: 200, body: { status: 'success', data: { outOrderNo: body.outOrderNo } } });
      expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('3.00');
      await results(f, prepayId, body.outOrderNo);
      expect((await f.client.shareProfit(body)).data.state).toBe('finished');
      const changed = await sharing.split(f.client, { ...body, receivers: [{ ...body.receivers[0], amount: '2.01' }] });
      expect(changed).toMatchObject({ httpStatus: 409, body: { error: 'profit_sharing_order_conflict', code: 'E0062' } });
      const asFinish = await sharing.finish(f.client, { prepayId, outOrderNo: body.outOrderNo, description: 'x' });
      expect(asFinish).toMatchObject({ httpStatus: 409, body: { error: 'profit_sharing_order_conflict' } });
      expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('3.00');
    });

    test('refusals, each with its own error, and nothing recorded', async () => {
      const paid = await sharedPaidOrder('30.00');
      const count = async () =>
        Number(
          (await kit.runtime.db.db
            .selectFrom('ps_requests')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst())!.n,
        );
      const before = await count();

      // An unpaid order.
      const unpaid = await newOrder(f, '30.00');
      await f.client.socialPayApp(unpaid, { enableProfitSharing: true });
      expect(await sharing.split(f.client, split(unpaid, { partner: '1.00' }))).toMatchObject({ httpStatus: 409, body: { error: 'order_not_paid' } });

      // A merchant that is not contracted.
      const plain = await payFixture(kit);
      const notContracted = await sharedPaidOrder('30.00', plain);
      expect(await sharing.split(plain.client, split(notContracted, { partner: '1.00' }))).toMatchObject({
        httpStatus: 400,
        body: { error: 'profit_sharing_not_enabled', code: 'E0024' },
      });
      expect(await sharing.receiver(plain.client, { merchantId: plain.parentId, ...PARTNER })).toMatchObject({
        httpStatus: 400,
        body: { error: 'profit_sharing_not_enabled' },
      });

      // A contracted merchant's order placed without profit sharing.
      const without = await newOrder(f, '30.00');
      const { args } = await f.client.socialPayNative(without);
      await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url });
      expect((await f.client.waitForPayment(without)).status).toBe('finish');
      expect(await sharing.split(f.client, split(without, { partner: '1.00' }))).toMatchObject({
        httpStatus: 400,
        body: { error: 'profit_sharing_not_enabled' },
      });

      // A receiver never added (and one added for another merchant).
      const stranger = { type: 'PERSONAL_OPENID', account: 'oNeverAdded0000000000000001', amount: '1.00', description: 'x' };
      const unknown = await sharing.split(f.client, { prepayId: paid, outOrderNo: no(), receivers: [stranger] });
      expect(unknown).toMatchObject({
        httpStatus: 400,
        body: { error: 'profit_sharing_receiver_unknown', code: 'E0061', msg: expect.stringContaining(stranger.account) },
      });

      // Another app's order: 401; an unknown order: 404.
      const other = await kit.newApp();
      expect(await sharing.split(other.client, split(paid, { partner: '1.00' }))).toMatchObject({ httpStatus: 401, body: { error: 'not_owner' } });
      expect(await sharing.amounts(other.client, paid)).toMatchObject({ httpStatus: 401 });
      expect(await sharing.detail(other.client, paid, 'whatever')).toMatchObject({ httpStatus: 401 });
      expect(await sharing.split(f.client, split('NoSuchOrder1', { partner: '1.00' }))).toMatchObject({ httpStatus: 404, body: { error: 'not_found' } });

      // Malformed requests.
      for (const bad of [
        { ...split(paid, { partner: '1.234' }) },
        { ...split(paid, { partner: '0' }) },
        { ...split(paid, { partner: '-1.00' }) },
        { prepayId: paid, outOrderNo: no(), receivers: [{ type: PARTNER.type, account: PARTNER.account, amount: 1, description: 'number' }] },
        { prepayId: paid, outOrderNo: no(), receivers: [] },
        { prepayId: paid, outOrderNo: 'has space', receivers: split(paid, { partner: '1.00' }).receivers },
        { ...split(paid, { partner: '1.00' }), receivers: [...split(paid, { partner: '1.00' }).receivers, ...split(paid, { partner: '1.00' }).receivers] },
        { ...split(paid, { partner: '1.00' }), tip: 1 },
      ]) {
        const a = await sharing.split(f.client, bad);
        expect([JSON.stringify(bad), a.httpStatus, a.body.error]).toEqual([JSON.stringify(bad), 400, expect.stringMatching(/invalid_request|invalid_amount/)]);
      }
      expect(await sharing.receiver(f.client, { merchantId: f.parentId, type: 'MERCHANT_ID', account: '1900000999', relationType: 'PARTNER' })).toMatchObject({
        httpStatus: 400,
        body: { msg: expect.stringContaining('name') },
      });
      expect(await sharing.detail(f.client, paid, 'nope')).toMatchObject({ httpStatus: 404, body: { error: 'not_found' } });
      expect((await f.client.call('GET', '/submerchant-pay/profitSharing/orders/x')).httpStatus).toBe(400);
      expect((await fetch(`${kit.url}/submerchant-pay/profitSharing/orders`)).status).toBe(405);
      expect(await count()).toBe(before);
      expect((await f.client.profitSharingAmounts(paid)).data.sharedAmount).toBe('0.00');
    });

    test('a CUSTOM receiver: refused without customRelation (400 naming it, nothing recorded); with it, the platform is told custom_relation and a split pays it', async () => {
      const g = await payFixture(kit);
      await kit.runtime.services.merchants.setContracted(g.parentId, true);
      const custom = { merchantId: g.parentId, type: 'PERSONAL_OPENID', account: 'oCustomRelation00000000001', relationType: 'CUSTOM' } as const;
      const kitRows = () => kit.runtime.db.db.selectFrom('ps_receivers').selectAll().where('account', '=', custom.account).execute();
      const platformRows = () => sandboxTables(kit).selectFrom('sandbox_ps_receivers').selectAll().where('account', '=', custom.account).execute();
      for (const [bad, why] of [
        [custom, /customRelation: is required when relationType is CUSTOM/],
        [{ ...custom, customRelation: '  ' }, /customRelation: must not be empty/],
        [{ ...custom, customRelation: '一二三四五六七八九十十' }, /customRelation: must be at most 10 characters/],
        [{ ...custom, relationType: 'STAFF', customRelation: '店长' }, /customRelation: is only for relationType CUSTOM/],
      ] as const) {
        expect(await sharing.receiver(g.client, bad)).toMatchObject({ httpStatus: 400, body: { error: 'invalid_request', msg: expect.stringMatching(why) } });
      }
      expect(await kitRows()).toEqual([]);
      expect(await platformRows()).toEqual([]);

      // Ten characters, as the platform counts them: accepted, and the platform has it.
      await g.client.addProfitSharingReceiver({ ...custom, customRelation: '加盟店店长兼区域经理' });
      expect((await kitRows()).map((r) => [r.relation_type, r.custom_relation])).toEqual([['CUSTOM', '加盟店店长兼区域经理']]);
      expect((await platformRows()).map((r) => [r.sub_mch_id, r.relation_type, r.custom_relation])).toEqual([
        [SOCIAL_PARAMS.socialMchId, 'CUSTOM', '加盟店店长兼区域经理'],
      ]);
      const prepayId = await sharedPaidOrder('10.00', g);
      const body: SplitRequest = {
        prepayId,
        outOrderNo: no(),
        receivers: [{ type: custom.type, account: custom.account, amount: '1.00', description: 'custom share' }],
      };
      await g.client.shareProfit(body);
      expect((await results(g, prepayId, body.outOrderNo)).data.receivers[0].result).toBe('success');
    });

    test('a receiver removed while its share is pending: the channel closes it and the share can be used again', async () => {
      const g = await payFixture(kit);
      await kit.runtime.services.merchants.setContracted(g.parentId, true);
      await g.client.addProfitSharingReceiver({ merchantId: g.parentId, ...PARTNER });
      await g.client.addProfitSharingReceiver({ merchantId: g.parentId, ...PARTNER }); // idempotent
      await g.client.addProfitSharingReceiver({ merchantId: g.parentId, ...STAFF });
      const prepayId = await sharedPaidOrder('10.00', g);
      const body = split(prepayId, { partner: '2.00', staff: '1.00' });
      await g.client.shareProfit(body);
      await g.client.removeProfitSharingReceiver({ merchantId: g.parentId, type: STAFF.type, account: STAFF.account });
      await g.client.removeProfitSharingReceiver({ merchantId: g.parentId, type: STAFF.type, account: STAFF.account }); // idempotent
      const done = await results(g, prepayId, body.outOrderNo);
      expect(done.data.receivers.map((r) => [r.account, r.result])).toEqual([
        [PARTNER.account, 'success'],
        [STAFF.account, 'closed'],
      ]);
      expect(done.data.receivers[1].failReason).toBeTruthy();
      expect((await g.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('2.00');
      // A removed receiver cannot be named; added again, it can.
      expect(await sharing.split(g.client, split(prepayId, { staff: '1.00' }))).toMatchObject({
        httpStatus: 400,
        body: { error: 'profit_sharing_receiver_unknown' },
      });
      await g.client.addProfitSharingReceiver({ merchantId: g.parentId, ...STAFF });
      const again = split(prepayId, { staff: '1.00' });
      await g.client.shareProfit(again);
      expect((await results(g, prepayId, again.outOrderNo)).data.receivers[0].result).toBe('success');
    });

    test('a refund of a shared order refunds the full amount and takes nothing back from receivers', async () => {
      const prepayId = await sharedPaidOrder('40.00');
      const body = split(prepayId, { partner: '12.00' });
      await f.client.shareProfit(body);
      await results(f, prepayId, body.outOrderNo);
      const token = (await f.client.login(f.subId, f.pw)).loginToken;
      expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
      // Completed by the platform (and notified) once its delay has passed.
      await kit.advance(REFUND_DELAY_MS);
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
      const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.state === 'paid')!;
      const refunds = await sandboxTables(kit)
        .selectFrom('sandbox_refunds')
        .selectAll()
        .where('prepay_id', '=', await sandboxPrepayId(kit, co))
        .execute();
      expect(refunds.map((r) => r.refund_fee)).toEqual([4000]);
      expect((await f.client.profitSharingOrder(prepayId, body.outOrderNo)).data.receivers[0]).toMatchObject({ result: 'success', amount: '12.00' });
      await waitFor(() => receiver.received.filter((r) => JSON.parse(r.body).prepayId === prepayId).length === 2, 'finish and refunded callbacks');
      // A refunded order cannot be shared any more; its amounts are still readable.
      expect(await sharing.split(f.client, split(prepayId, { partner: '1.00' }))).toMatchObject({ httpStatus: 409, body: { error: 'order_already_refunded' } });
      expect((await f.client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('12.00');
      expect(await payApi.refund(f.client, prepayId, token)).toMatchObject({ httpStatus: 409, body: { error: 'order_already_refunded' } });
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
