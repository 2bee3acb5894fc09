/**
 * Alipay's scan-code flow (design 6.3) through real HTTP against the sandbox playing Alipay with
 * the development keys: parameters on the parent, `alipayNative` → `qr_code`, the payer pays in the
 * sandbox, the signed notification at `/pay-notify/alipay` settles the order (one callback); a forged
 * notification changes nothing; the 4.6 refund goes through Alipay.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { devAlipayMaterial } from '@kit/sandbox';
import { signNotification } from '../../src/payments/providers/alipay/sign';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { jobByKey, newOrder, payApi, recordingClient, sandboxPost, startReceiver, type PayFixture } from '../support/payments';
import { createMerchants } from '../support/kit';
import { sandboxOf } from '@kit/sandbox';
import { waitFor } from '../support/wait';

/** The time limit of a channel call (PAY_GATEWAY_TIMEOUT), which the tests of a held call move the clock past. */
const GATEWAY_TIMEOUT_MS = 1_500;
/** `alipay.trade.refund` on the stand-in's gateway (the method goes in the URL, as the SDKs send it). */
const REFUND_CALL = /[?&]method=alipay\.trade\.refund(&|$)/;

describeEachBackend('Alipay scan-code payments', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The `alipay.trade.refund` calls that reached the stand-in, held or not. */
  let refundCalls = 0;

  beforeAll(async () => {
    kit = await startTestKit(backend, { PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s', PAY_GATEWAY_TIMEOUT: `${GATEWAY_TIMEOUT_MS}ms` });
    receiver = await startReceiver();
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    // On the parent: the sub-merchant inherits them.
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: 'appAuthToken_parent_0001', notifyCallbackUrl: `${receiver.url}/cb` });
    f = { ...app, ...m };
    // Express has taken its mount path off `url` by now: `originalUrl` is the whole of it.
    kit.runtime.server.on('request', (req: IncomingMessage & { originalUrl?: string }) => {
      if (REFUND_CALL.test(req.originalUrl ?? req.url ?? '')) refundCalls++;
    });
  });
  afterEach(() => kit.clock.resume());
  afterAll(async () => {
    await kit.close();
    await receiver.close();
  });

  const callbacksOf = (prepayId: string) => kit.runtime.services.callbacks.history(prepayId);
  const alipay = () => sandboxOf(kit.runtime.services)!.alipay!;
  /** Everything under way has run: the stand-in's notifications answered, the service's background work due now done. */
  const settled = async () => {
    await alipay().idle();
    await kit.settle();
    await alipay().idle();
  };
  /** The follow-up of an order's refund, when it has no run under way. */
  const refundFollowIdle = async (prepayId: string) => {
    const job = await jobByKey(kit, 'refund.follow', prepayId);
    return job && job.lease_token === null ? job : undefined;
  };
  /**
   * Moves the clock to each next run of the order's refund follow-up and lets it run, until `check` holds: its
   * schedule (PAYMENT_QUERY_SCHEDULE, then the time a request may still be answered) is not waited out.
   */
  const followRefund = (prepayId: string, check: () => Promise<boolean>, what: string) =>
    waitFor(async () => {
      if (await check()) return true;
      const job = await refundFollowIdle(prepayId);
      if (job?.state === 'pending') kit.clock.advanceTo(job.next_at);
      await kit.settle();
      return false;
    }, what);
  const refundedOrder = (prepayId: string) => async () => (await f.client.prepayDetail(prepayId)).status === 'refunded';
  const followRuns = (prepayId: string, n: number) => async () => ((await jobByKey(kit, 'refund.follow', prepayId))?.attempts ?? 0) >= n;

  /** `notificationLost`: the payment is learned of by the follow-up's first query (PAYMENT_QUERY_SCHEDULE), which the clock is moved to. */
  const paidOrder = async (amount = '12.34', opts: { notificationLost?: boolean } = {}) => {
    const prepayId = await newOrder(f, amount);
    const answer = await f.client.alipayNative(prepayId);
    expect(answer).toMatchObject({ version: 1, status: 'success', args: { qr_code: expect.stringMatching(/^https:\/\//) } });
    const paid = await sandboxPost(kit.url, '/alipay/pay', { qrCode: answer.args.qr_code });
    expect(paid).toMatchObject({ status: 200, body: { status: 'success' } });
    if (opts.notificationLost) await kit.advance('300ms');
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    return { prepayId, qrCode: answer.args.qr_code, tradeNo: paid.body.tradeNo as string };
  };

  test('alipayNative gives a code; paid in the sandbox, the order finishes with one callback', async () => {
    // The clock stands still: the follow-up's query (due PAYMENT_QUERY_SCHEDULE's first wait after the code) cannot
    // run, so it is the notification that settles the payment, however slowly it comes.
    kit.clock.freeze();
    const { prepayId, tradeNo } = await paidOrder();
    const state = await kit.runtime.services.payments.state(prepayId);
    expect(state.channelOrders[0]).toMatchObject({ channel: 'Alipay', state: 'paid', transaction_id: tradeNo, paid_via: 'notification' });
    await waitFor(async () => (await callbacksOf(prepayId)).some((c) => c.status === 'finish' && c.state === 'delivered'), 'finish callback');
    await settled();
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish']);
    // The same code again is the same order: nothing more to pay.
    expect((await payApi.native(f.client, prepayId)).body.status).not.toBe('success');
  });

  test('the same order asked twice gets the same code; a merchant without an authorization is told what is missing', async () => {
    const prepayId = await newOrder(f);
    const a = await f.client.alipayNative(prepayId);
    const b = await f.client.alipayNative(prepayId);
    expect(b.args.qr_code).toBe(a.args.qr_code);
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    const other = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '1.00' });
    const missing = await app.client.call<any>('POST', '/submerchant-pay/alipayNative', { body: { prepayId: other.prepayId } });
    expect(missing.body).toMatchObject({ status: 'fail', error: 'payment_params_missing' });
    expect(missing.body.msg).toMatch(/appAuthToken/);
  });

  test("Alipay's refusal is not `success` and names its sub_code and sub_msg", async () => {
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId);
    await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: 'appAuthToken_withdrawn_01' });
    expect(await sandboxPost(kit.url, '/alipay/revoke', { appAuthToken: 'appAuthToken_withdrawn_01' })).toMatchObject({ status: 200 });
    const order = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '2.00' });
    const refused = await app.client.call<any>('POST', '/submerchant-pay/alipayNative', { body: { prepayId: order.prepayId } });
    expect(refused.body).toMatchObject({ version: 1, status: 'fail', error: 'channel_error' });
    expect(refused.body.msg).toContain('aop.invalid-app-auth-token');
    expect(refused.body.msg).toContain('无效的应用授权令牌');
  });

  const notify = async (fields: Record<string, string>, key: Parameters<typeof signNotification>[1]) => {
    const res = await fetch(`${kit.url}/pay-notify/alipay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
      body: new URLSearchParams(signNotification(fields, key)).toString(),
    });
    return { status: res.status, text: await res.text() };
  };
  const paidNotice = (outTradeNo: string, appId: string, amount: string) => ({
    notify_time: '2026-01-01 08:00:00',
    notify_type: 'trade_status_sync',
    notify_id: 'forged0001',
    app_id: appId,
    charset: 'utf-8',
    version: '1.0',
    trade_no: '2026010122001400000001',
    out_trade_no: outTradeNo,
    trade_status: 'TRADE_SUCCESS',
    total_amount: amount,
    gmt_payment: '2026-01-01 08:00:00',
  });

  test('a forged notification, or one with the wrong amount, is refused and changes nothing', async () => {
    const prepayId = await newOrder(f, '3.21');
    await f.client.alipayNative(prepayId);
    const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
    const dev = devAlipayMaterial(kit.runtime.config.DATA_DIR);
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    // Signed by someone else than Alipay.
    const forged = await notify(paidNotice(co.out_trade_no, dev.appId, '3.21'), forger);
    expect(forged.status).toBe(400);
    expect(forged.text).not.toBe('success');
    // Signed by Alipay's key, but not for this order's amount, or for another application.
    expect((await notify(paidNotice(co.out_trade_no, dev.appId, '0.01'), dev.alipayPrivateKey)).status).toBe(400);
    expect((await notify(paidNotice(co.out_trade_no, '2021000000000000', '3.21'), dev.alipayPrivateKey)).status).toBe(400);
    expect((await notify(paidNotice('unknownOrder0001', dev.appId, '3.21'), dev.alipayPrivateKey)).status).toBe(400);
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].state).toBe('open');
    expect(await callbacksOf(prepayId)).toEqual([]);
    // The same notification signed by Alipay's key and right in every way is taken: the checks above are what refused them.
    expect(await notify(paidNotice(co.out_trade_no, dev.appId, '3.21'), dev.alipayPrivateKey)).toEqual({ status: 200, text: 'success' });
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
  });

  test('lost notifications: the payment and the refund converge through alipay.trade.query and the refund query', async () => {
    const faults = (set: object) => sandboxPost(kit.url, '/faults', set);
    expect((await faults({ payNotifications: 'drop', refundNotifications: 'drop' })).status).toBe(200);
    try {
      const { prepayId, tradeNo } = await paidOrder('4.56', { notificationLost: true });
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0]).toMatchObject({ transaction_id: tradeNo, paid_via: 'query' });
      const token = (await f.client.login(f.subId, f.pw)).loginToken;
      expect((await f.client.refund(prepayId, token)).status).toBe('success');
      await followRefund(prepayId, refundedOrder(prepayId), 'refunded');
      await waitFor(async () => (await callbacksOf(prepayId)).length === 2, 'two callbacks');
      expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
    } finally {
      await faults({});
    }
  });

  /** What the stand-in sent for a channel order, acknowledged or not. */
  const noticesOf = async (prepayId: string) => {
    const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
    return sandboxOf(kit.runtime.services)!.alipay!.notices.filter((n) => n.form.out_trade_no === co.out_trade_no);
  };

  test('duplicate notifications (SANDBOX_DUPLICATE_NOTIFY): answered `success` each time, nothing changes the second time', async () => {
    const { prepayId } = await paidOrder('5.55');
    const before = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
    // The first sending and its duplicate, both acknowledged.
    await waitFor(async () => (await noticesOf(prepayId)).filter((n) => n.acknowledged).length === 2, 'the duplicate acknowledged');
    const pay = await noticesOf(prepayId);
    expect(pay.map((n) => [n.attempt, n.acknowledged])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(pay[1].form).toEqual(pay[0].form);
    await waitFor(async () => (await callbacksOf(prepayId)).some((c) => c.state === 'delivered'), 'finish callback');
    await settled();
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish']);
    expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0]).toEqual(before);

    // The refund's notification is duplicated too: still one refunded callback.
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    expect((await f.client.refund(prepayId, token)).status).toBe('success');
    await waitFor(async () => (await noticesOf(prepayId)).filter((n) => n.form.out_biz_no && n.acknowledged).length === 2, 'the refund duplicate');
    await waitFor(async () => (await callbacksOf(prepayId)).length === 2, 'two callbacks');
    await settled();
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
  });

  test('a held refund (refunds: "hold"): 4.6 answers 503, the refund stays in progress until released, then one refunded callback', async () => {
    const faults = (set: object) => sandboxPost(kit.url, '/faults', set);
    const { prepayId } = await paidOrder('6.66');
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
    const refundsAtAlipay = () => alipay().trade('appAuthToken_parent_0001', co.out_trade_no)?.refunds;
    expect((await faults({ refunds: 'hold' })).status).toBe(200);
    // The clock moves only as the test moves it: past a held call's time limit once the call is held.
    kit.clock.freeze();
    try {
      let calls = refundCalls;
      const answer = payApi.refund(f.client, prepayId, token);
      await waitFor(() => refundCalls > calls, 'the refund call held by the stand-in');
      kit.clock.advance(GATEWAY_TIMEOUT_MS);
      const lost = await answer;
      expect(lost).toMatchObject({ httpStatus: 503, body: { status: 'fail', error: 'channel_unavailable' } });
      expect((await kit.runtime.services.payments.state(prepayId)).refund).toMatchObject({ state: 'requesting' });
      expect(await payApi.refund(f.client, prepayId, token)).toMatchObject({ httpStatus: 409, body: { error: 'refund_in_progress' } });
      // Past the gateway time limit and more. The follow-up's run now calls nothing (the request may still be
      // answered): once that time has passed, it takes the refund over, finds nothing at Alipay and sends it again, held too.
      await kit.settle();
      const follow = (await waitFor(() => refundFollowIdle(prepayId), 'the follow-up at rest'))!;
      calls = refundCalls;
      kit.clock.advanceTo(follow.next_at);
      await waitFor(() => refundCalls > calls, 'the refund sent again, held by the stand-in');
      kit.clock.advance(GATEWAY_TIMEOUT_MS);
      await waitFor(async () => ((await refundFollowIdle(prepayId))?.attempts ?? 0) > follow.attempts, 'the held resend given up');
      expect(refundsAtAlipay()).toEqual([]);
      expect((await f.client.prepayDetail(prepayId)).status).not.toBe('refunded');
      expect((await kit.runtime.services.payments.state(prepayId)).refund?.state).not.toBe('success');
      expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish']);
    } finally {
      kit.clock.resume();
      await faults({});
    }
    // Released: the follow-up's next run sends it again, and Alipay takes it.
    await followRefund(prepayId, refundedOrder(prepayId), 'refunded once released');
    await waitFor(async () => (await callbacksOf(prepayId)).length === 2, 'two callbacks');
    await settled();
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
    expect(refundsAtAlipay()).toEqual([{ outRequestNo: expect.any(String), cents: 666 }]);
  });

  test('a refund Alipay did not take (its query names the out_request_no without refund_status) is sent again under the same number until taken', async () => {
    const faults = (set: object) => sandboxPost(kit.url, '/faults', set);
    const { prepayId } = await paidOrder('8.18');
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    const co = (await kit.runtime.services.payments.state(prepayId)).channelOrders[0];
    const alipayAt = () => sandboxOf(kit.runtime.services)!.alipay!.trade('appAuthToken_parent_0001', co.out_trade_no);
    // Alipay answers the refund ACQ.SYSTEM_ERROR and does not take it: its refund query then names the request, without refund_status.
    expect((await faults({ alipayRefusals: { 'alipay.trade.refund': 'ACQ.SYSTEM_ERROR' } })).status).toBe(200);
    try {
      const busy = await payApi.refund(f.client, prepayId, token);
      expect(busy).toMatchObject({ httpStatus: 503, body: { status: 'fail', error: 'channel_unavailable' } });
      expect(busy.body.msg).toContain('ACQ.SYSTEM_ERROR');
      // The follow-up has asked Alipay and sent the refund again (refused the same way while the fault lasts): still requested, not waited on as accepted.
      await followRefund(prepayId, followRuns(prepayId, 3), 'the follow-up at work');
      expect((await kit.runtime.services.payments.state(prepayId)).refund).toMatchObject({ state: 'requesting' });
      expect(alipayAt()!.refunds).toEqual([]);
    } finally {
      await faults({});
    }
    await followRefund(prepayId, refundedOrder(prepayId), 'refunded once Alipay takes it');
    const refund = (await kit.runtime.services.payments.state(prepayId)).refund!;
    expect(refund).toMatchObject({ state: 'success', refund_cents: 818 });
    // Taken once, under the number it was first sent with.
    expect(alipayAt()!.refunds).toEqual([{ outRequestNo: refund.out_refund_no, cents: 818 }]);
    await waitFor(async () => (await callbacksOf(prepayId)).length === 2, 'two callbacks');
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
  });

  test('ACQ.SYSTEM_ERROR, signed or not (error_response, a node without sign), is 503 with Retry-After and changes nothing; the same order gets its code after', async () => {
    const recorded = recordingClient(kit, f);
    const prepayId = await newOrder(f, '2.34');
    for (const alipayErrors of ['signed', 'unsigned', 'error_response']) {
      expect((await sandboxPost(kit.url, '/faults', { alipayRefusals: { 'alipay.trade.precreate': 'ACQ.SYSTEM_ERROR' }, alipayErrors })).status).toBe(200);
      try {
        const busy = await recorded.client.call<any>('POST', '/submerchant-pay/alipayNative', { body: { prepayId } });
        expect([alipayErrors, busy.httpStatus, busy.body.error]).toEqual([alipayErrors, 503, 'channel_unavailable']);
        expect(busy.body.msg).toContain('ACQ.SYSTEM_ERROR');
        expect(recorded.retryAfter()).toBe('5');
      } finally {
        await sandboxPost(kit.url, '/faults', {});
      }
      // Not refused: the channel order stays to be placed again under the same out_trade_no.
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders.map((c) => c.state)).toEqual(['creating']);
    }
    const placed = await f.client.alipayNative(prepayId);
    expect(placed).toMatchObject({ status: 'success', args: { qr_code: expect.stringMatching(/^https:\/\//) } });
    expect((await kit.runtime.services.payments.state(prepayId)).channelOrders.map((c) => c.state)).toEqual(['open']);
  });

  test('an unsigned refusal is read for its sub_code and changes no money state: a refund refused unsigned stays requested and completes later; signed, it fails', async () => {
    const faults = (set: object) => sandboxPost(kit.url, '/faults', set);
    const refusing = { 'alipay.trade.refund': 'ACQ.TRADE_STATUS_ERROR' };
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    const refundOf = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).refund;
    const unsignedOne = (await paidOrder('3.01')).prepayId;
    const signedOne = (await paidOrder('3.02')).prepayId;

    // Refused in Alipay's gateway's own error_response, unsigned: a refusal naming its sub_code, nothing more.
    expect((await faults({ alipayRefusals: refusing, alipayErrors: 'error_response' })).status).toBe(200);
    try {
      const refused = await payApi.refund(f.client, unsignedOne, token);
      expect(refused).toMatchObject({ httpStatus: 502, body: { status: 'fail', error: 'channel_error' } });
      expect(refused.body.msg).toContain('ACQ.TRADE_STATUS_ERROR');
      // Its follow-up asks (not taken) and sends it again, refused unsigned each time: never failed by it.
      await followRefund(unsignedOne, followRuns(unsignedOne, 3), 'the follow-up at work');
      expect(await refundOf(unsignedOne)).toMatchObject({ state: 'requesting' });
      expect((await f.client.prepayDetail(unsignedOne)).status).toBe('finish');
    } finally {
      await faults({});
    }
    // Alipay takes it once it stops refusing: the same refund, completed, one refunded callback.
    await followRefund(unsignedOne, refundedOrder(unsignedOne), 'refunded after all');
    await waitFor(async () => (await callbacksOf(unsignedOne)).length === 2, 'two callbacks');
    expect((await callbacksOf(unsignedOne)).map((c) => c.status)).toEqual(['finish', 'refunded']);

    // The same refusal, signed, is what it says: the refund failed.
    expect((await faults({ alipayRefusals: refusing })).status).toBe(200);
    try {
      const signed = await payApi.refund(f.client, signedOne, token);
      expect(signed).toMatchObject({ httpStatus: 502, body: { status: 'fail', error: 'channel_error' } });
      expect(signed.body.msg).toContain('ACQ.TRADE_STATUS_ERROR');
      expect(await refundOf(signedOne)).toMatchObject({ state: 'failed' });
    } finally {
      await faults({});
    }
  });

  test('an Alipay-paid order is refunded through the refund endpoint', async () => {
    const { prepayId, tradeNo } = await paidOrder('7.77');
    const token = (await f.client.login(f.subId, f.pw)).loginToken;
    expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
    await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
    expect((await kit.runtime.services.payments.state(prepayId)).refund).toMatchObject({ state: 'success', refund_cents: 777, refund_id: tradeNo });
    await waitFor(async () => (await callbacksOf(prepayId)).length === 2, 'two callbacks');
    expect((await callbacksOf(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
  });

  test('with no ALIPAY_* setting and no sandbox, Alipay is off: alipayNative answers channel_unavailable', async () => {
    const off = await startTestKit(backend, { SANDBOX_ENABLED: 'false' });
    try {
      const app = await off.newApp();
      const m = await createMerchants(app.client, app.appId);
      await app.client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: 'appAuthToken_parent_0002' });
      const order = await app.client.createPrepay({ subMerchantId: m.subId, totalAmount: '1.00' });
      const answer = await app.client.call<any>('POST', '/submerchant-pay/alipayNative', { body: { prepayId: order.prepayId } });
      expect(answer).toMatchObject({ httpStatus: 503, body: { status: 'fail', error: 'channel_unavailable' } });
    } finally {
      await off.close();
    }
  });
});
