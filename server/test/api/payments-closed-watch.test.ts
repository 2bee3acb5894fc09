/**
 * A second payment is found without waiting for the day's bill (docs/payments.md "Paid once"),
 * through real HTTP against the sandbox playing both wallets, on SQLite and PostgreSQL: an Alipay
 * code the kit closed (the payer switched wallets) is no trade at Alipay, so the close changes
 * nothing there and the code stays payable until its expiry; the kit keeps asking Alipay about it
 * until then (once more at that moment), so that a payment of it whose notification is lost is
 * found by its order query and refunded automatically, with no reconciliation (`RECONCILE_AT` is
 * off in tests). A channel order its platform really closed is not followed any further.
 */
import { sandboxOf } from '@kit/sandbox';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { bothWalletsFixture, channelOrderOf, jobByKey, newOrder, sandboxPost, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const ALIPAY_TOKEN = 'appAuthToken_closed_watch_01';

describeEachBackend('a closed channel order its platform may still take a payment of is followed until it no longer can', (backend) => {
  jest.setTimeout(60_000);
  let kit: TestKit;
  let f: PayFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    kit = await startTestKit(backend, { SANDBOX_REFUND_DELAY: '200ms', PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s' });
    receiver = await startReceiver();
    f = await bothWalletsFixture(kit, ALIPAY_TOKEN, `${receiver.url}/cb`);
  });
  afterAll(async () => {
    await kit.close();
    await receiver.close();
  }, 30_000);

  const services = () => kit.runtime.services;
  const alipayAt = (outTradeNo: string) => sandboxOf(services())!.alipay!.trade(ALIPAY_TOKEN, outTradeNo);
  const byChannel = (prepayId: string, channel: string) => channelOrderOf(kit, prepayId, channel);
  const followUp = (outTradeNo: string) => jobByKey(kit, 'payment.reconcile', outTradeNo);

  /** An order whose Alipay code was closed by the kit when the payer switched to the social channel's code. */
  const switchedOrder = async (amount: string) => {
    const prepayId = await newOrder(f, amount);
    const alipay = await f.client.alipayNative(prepayId);
    const social = await f.client.socialPayNative(prepayId);
    const closed = await byChannel(prepayId, 'Alipay');
    expect(closed.state).toBe('closed');
    // Closing a code nobody scanned changed nothing at Alipay: there is no trade to close.
    expect(alipayAt(closed.out_trade_no)).toBeUndefined();
    return { prepayId, qrCode: alipay.args.qr_code as string, codeUrl: social.args.code_url as string, alipay: closed };
  };

  test('paid through the social channel, then the closed Alipay code paid with its notification lost: found by the follow-up and refunded', async () => {
    const { prepayId, qrCode, codeUrl, alipay } = await switchedOrder('6.06');
    expect((await sandboxPost(kit.url, '/pay', { codeUrl })).status).toBe(200);
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');

    // The payer's other phone pays the Alipay code; Alipay's notification never arrives.
    expect((await sandboxPost(kit.url, '/faults', { payNotifications: 'drop' })).status).toBe(200);
    try {
      expect(await sandboxPost(kit.url, '/alipay/pay', { qrCode })).toMatchObject({ status: 200, body: { status: 'success' } });
    } finally {
      await sandboxPost(kit.url, '/faults', {});
    }
    expect(sandboxOf(services())!.alipay!.notices.filter((n) => n.form.out_trade_no === alipay.out_trade_no)).toEqual([]);

    await waitFor(async () => (await services().payments.state(prepayId)).duplicates[0]?.state === 'success', 'the second payment refunded');
    const [dup] = (await services().payments.state(prepayId)).duplicates;
    expect(dup).toMatchObject({ out_trade_no: alipay.out_trade_no, channel: 'Alipay', refund_cents: 606, state: 'success' });
    expect(await byChannel(prepayId, 'Alipay')).toMatchObject({ state: 'paid', paid_via: 'query' });
    expect(alipayAt(alipay.out_trade_no)).toMatchObject({ status: 'TRADE_CLOSED', refunds: [{ outRequestNo: dup.out_refund_no, cents: 606 }] });
    // The order stays paid once, by the social channel, with its one callback.
    expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
    expect((await services().payments.paidChannels([prepayId])).get(prepayId)).toBe('SocialNative');
    await waitFor(async () => (await services().callbacks.history(prepayId)).some((c) => c.state === 'delivered'), 'finish delivered');
    expect((await services().callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish']);
    expect(await followUp(alipay.out_trade_no)).toMatchObject({ state: 'done' });
  });

  test('nobody pays the closed code: asked on the schedule, then once more when it can no longer be paid', async () => {
    const { prepayId, alipay } = await switchedOrder('7.07');
    const expireAt = (await services().prepay.find(prepayId))!.expire_at;
    const job = await followUp(alipay.out_trade_no);
    const payableUntil = JSON.parse(job!.payload).payableUntil as number;
    // Until the code's expiry (never later than the order's), give or take Alipay's clock.
    expect(payableUntil).toBeGreaterThanOrEqual(expireAt);
    expect(payableUntil - expireAt).toBeLessThanOrEqual(120_000);
    // The schedule over, its next question is at that moment: still following, not done.
    await waitFor(async () => (await followUp(alipay.out_trade_no))?.next_at === payableUntil, 'the last question due at the expiry');
    expect(await followUp(alipay.out_trade_no)).toMatchObject({ state: 'pending' });
    expect((await followUp(alipay.out_trade_no))!.attempts).toBeGreaterThanOrEqual(4);
    expect((await byChannel(prepayId, 'Alipay')).state).toBe('closed');
  });

  test('paid through the closed Alipay code (notified): the social order is closed at its platform and not followed further', async () => {
    const { prepayId, qrCode, alipay } = await switchedOrder('8.08');
    expect((await sandboxPost(kit.url, '/alipay/pay', { qrCode })).status).toBe(200);
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    // Alipay's notification records it, or the follow-up's question on its schedule, whichever comes first (both are the platform's word).
    expect(await byChannel(prepayId, 'Alipay')).toMatchObject({ state: 'paid', paid_via: expect.stringMatching(/^(notification|query)$/) });
    const social = await byChannel(prepayId, 'SocialNative');
    await waitFor(async () => (await byChannel(prepayId, 'SocialNative')).state === 'closed', 'the social order closed');
    // Closed at its platform for real: nothing more to ask.
    await waitFor(async () => (await followUp(social.out_trade_no))?.state === 'done', 'its follow-up ended');
    expect(await followUp(social.out_trade_no)).toMatchObject({ state: 'done', result: 'closed' });
    expect(await followUp(alipay.out_trade_no)).toMatchObject({ state: 'done' });
    expect((await services().payments.state(prepayId)).duplicates).toEqual([]);
  });
});
