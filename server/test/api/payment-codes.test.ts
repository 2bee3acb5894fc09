/**
 * The payer's payment code at the counter (7.4) over real HTTP, on both databases and both wallets:
 * a code pays at once; one the payer confirms answers `waiting` at once and finishes when they do;
 * one never confirmed is cancelled at the platform after CODE_PAY_WAIT and the order is then paid by
 * another code; a refused code changes nothing; a code without an answer is cancelled (its money
 * goes back); a code of no wallet is refused without asking a platform. The sandbox's codes say how
 * their payment goes (`sandbox/src/sandbox-codes.ts`).
 */
import { KitApiError, type PayAnswer } from '@kit/shared';
import { sandboxOf } from '@kit/sandbox';
import { describeEachBackend } from '../support/backends';
import { startTestKit, sandboxTables, type TestKit } from '../support/kit';
import { bothWalletsFixture, newOrder, sandboxPost, startReceiver, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';
import { PageClient } from '../support/page-client';
import { chinaDate } from '../../src/reconciliation/china-day';

const TOKEN = 'appAuthToken_codes_0001';
type Wallet = 'social' | 'alipay';
const CHANNEL: Record<Wallet, string> = { social: 'SocialNative', alipay: 'Alipay' };

describeEachBackend('payment codes at the counter', (backend) => {
  let kit: TestKit;
  let f: PayFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    // A gateway call's limit of 2 s: a code without an answer is given up (and cancelled) after it.
    kit = await startTestKit(backend, { CODE_PAY_WAIT: '30s', PAY_GATEWAY_TIMEOUT: '2s' });
    receiver = await startReceiver();
    f = await bothWalletsFixture(kit, TOKEN, `${receiver.url}/cb`);
  });
  afterEach(() => sandboxPost(kit.url, '/faults', {}));
  afterAll(async () => {
    await kit.close();
    await receiver.close();
  });

  const codeOf = async (wallet: Wallet, behaviour: string): Promise<string> => {
    const r = await sandboxPost(kit.url, '/payment-code', { wallet, behaviour });
    expect(r.status).toBe(200);
    return r.body.code as string;
  };
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a refusal');
      },
      (e: KitApiError) => ({ http: e.httpStatus, error: e.error, msg: e.body.msg as string }),
    );
  const codeOrders = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders.filter((c) => c.trade_type === 'MICROPAY');
  /** The trade at the platform: the social sandbox's order, or Alipay's stand-in's trade. */
  const atPlatform = async (wallet: Wallet, outTradeNo: string) => {
    if (wallet === 'alipay') return sandboxOf(kit.runtime.services)!.alipay!.trade(TOKEN, outTradeNo)?.status;
    const o = await sandboxTables(kit).selectFrom('sandbox_orders').select('state').where('out_trade_no', '=', outTradeNo).executeTakeFirst();
    return o?.state;
  };
  const CANCELLED_AT: Record<Wallet, string> = { social: 'REVOKED', alipay: 'TRADE_CLOSED' };

  test.each(['social', 'alipay'] as const)('a %s code pays at once: `paid`, the order finishes with its callback', async (wallet) => {
    // Alipay also notifies a code payment, and its notification would race the answer to record it
    // (either is correct): with the notification lost, the answer alone records it.
    expect((await sandboxPost(kit.url, '/faults', { payNotifications: 'drop' })).status).toBe(200);
    const prepayId = await newOrder(f, '8.80');
    const answer = await f.client.codePay(prepayId, await codeOf(wallet, 'pay'), 'POS-01');
    expect(answer).toEqual({ version: 1, status: 'success', args: { result: 'paid', channel: CHANNEL[wallet] } });
    expect(await f.client.prepayDetail(prepayId)).toMatchObject({ status: 'finish' });
    const [co] = await codeOrders(prepayId);
    expect(co).toMatchObject({ state: 'paid', paid_via: 'answer', channel: CHANNEL[wallet] });
    await waitFor(() => receiver.received.some((r) => JSON.parse(r.body).prepayId === prepayId), 'the callback');
    // One payment, one callback.
    await kit.settle();
    expect(receiver.received.filter((r) => JSON.parse(r.body).prepayId === prepayId)).toHaveLength(1);
  });

  test.each(['social', 'alipay'] as const)('a %s code the payer confirms answers `waiting` at once and finishes when they confirm', async (wallet) => {
    const prepayId = await newOrder(f, '9.90');
    const code = await codeOf(wallet, 'never');
    const answer = await f.client.pay({ prepayId, way: 'codePay', authCode: code });
    expect(answer).toEqual({ version: 1, status: 'success', args: { result: 'waiting', channel: CHANNEL[wallet] } });
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    // The payer types the password on the phone; the kit learns it from a query (or Alipay's notification).
    expect((await sandboxPost(kit.url, '/payment-code/confirm', { code })).status).toBe(200);
    await kit.advance('5s');
    await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'finish', 'finished');
    expect((await codeOrders(prepayId))[0].state).toBe('paid');
    expect(await atPlatform(wallet, (await codeOrders(prepayId))[0].out_trade_no)).toBe(wallet === 'social' ? 'SUCCESS' : 'TRADE_SUCCESS');
  });

  test.each(['social', 'alipay'] as const)(
    'a %s code never confirmed is cancelled at the platform after CODE_PAY_WAIT; the order stays payable and another code pays it',
    async (wallet) => {
      const prepayId = await newOrder(f, '10.10');
      expect((await f.client.codePay(prepayId, await codeOf(wallet, 'never'))).args.result).toBe('waiting');
      // One code at a time: another code, or a code to scan, waits for this one's end.
      expect(await refusal(f.client.codePay(prepayId, await codeOf(wallet, 'pay')))).toMatchObject({ http: 409, error: 'code_payment_waiting' });
      const [waiting] = await codeOrders(prepayId);
      await kit.advance('25s');
      expect((await codeOrders(prepayId))[0].state).toBe('open');
      await kit.advance('6s');
      expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
      expect(await atPlatform(wallet, waiting.out_trade_no)).toBe(CANCELLED_AT[wallet]);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      // The payer refreshes the code; this one pays.
      expect((await f.client.codePay(prepayId, await codeOf(wallet, 'pay'))).args.result).toBe('paid');
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      // The console's story: two codes scanned at the counter, the first cancelled, the second's answer said paid.
      const desk = new PageClient(`${kit.url}/console/api`);
      await desk.call('POST', '/login', { userId: f.parentId, pw: f.pw });
      const timeline = (await desk.call('GET', `/orders/${prepayId}`)).body.order.timeline as Array<{ kind: string; cause: string }>;
      const story = timeline.filter((e) => e.kind !== 'callback').map((e) => `${e.kind} ${e.cause}`);
      // (The cancel and the next code may share a millisecond of the test's clock: their order is not asserted.)
      expect([...story].sort()).toEqual(['channelOrder MICROPAY', 'channelOrder MICROPAY', 'channelOrderClosed cancelled', 'created created', 'paid answer']);
      expect(story[0]).toBe('created created');
      expect(story.at(-1)).toBe('paid answer');
    },
  );

  test.each(['social', 'alipay'] as const)('a %s code the platform refuses changes nothing; used again, it is refused again', async (wallet) => {
    const prepayId = await newOrder(f, '11.00');
    const code = await codeOf(wallet, 'balance');
    const first = await refusal(f.client.codePay(prepayId, code));
    expect(first).toMatchObject({ http: 402, error: 'payment_code_refused' });
    expect(first.msg).toContain(wallet === 'social' ? 'NOTENOUGH' : 'ACQ.BUYER_BALANCE_NOT_ENOUGH');
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    expect((await codeOrders(prepayId)).map((c) => c.state)).toEqual(['failed']);
    const again = await refusal(f.client.codePay(prepayId, code));
    expect(again).toMatchObject({ http: 402, error: 'payment_code_refused' });
    expect(again.msg).toContain(wallet === 'social' ? 'AUTHCODEEXPIRE' : 'ACQ.PAYMENT_AUTH_CODE_INVALID');
    // Nothing is left to follow.
    await kit.advance('1m');
    expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
  });

  test.each(['social', 'alipay'] as const)(
    'a %s code without an answer is cancelled at once: the money taken goes back, the order stays payable',
    async (wallet) => {
      // Alipay notifies the payment it took: lost here, so that only the cancel can end it.
      expect((await sandboxPost(kit.url, '/faults', { payNotifications: 'drop' })).status).toBe(200);
      const prepayId = await newOrder(f, '12.00');
      const lost = await refusal(f.client.codePay(prepayId, await codeOf(wallet, 'silent')));
      expect(lost).toMatchObject({ http: 503, error: 'channel_unavailable' });
      expect(lost.msg).toContain('was cancelled');
      const [co] = await codeOrders(prepayId);
      expect(co.state).toBe('cancelled');
      // The stand-in had taken the money: the cancel gave it back.
      expect(await atPlatform(wallet, co.out_trade_no)).toBe(CANCELLED_AT[wallet]);
      if (wallet === 'alipay') expect(sandboxOf(kit.runtime.services)!.alipay!.trade(TOKEN, co.out_trade_no)?.refunds).toHaveLength(1);
      // Its notification of the payment (Alipay's) counts for nothing: the order is not paid.
      await kit.settle();
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
    },
  );

  test("an Alipay code without an answer whose payment Alipay notifies meanwhile is paid: the notification is the platform's word", async () => {
    const prepayId = await newOrder(f, '12.50');
    const code = await codeOf('alipay', 'silent');
    // The clock stands still: the call's time limit cannot end it before the notification is in.
    kit.clock.freeze();
    let answered;
    try {
      answered = f.client.codePay(prepayId, code);
      await waitFor(async () => (await codeOrders(prepayId))[0]?.state === 'paid', 'the notification recorded');
      await kit.advance('2s');
    } finally {
      kit.clock.resume();
    }
    expect((await answered).args).toEqual({ result: 'paid', channel: 'Alipay' });
    const [co] = await codeOrders(prepayId);
    expect(co).toMatchObject({ state: 'paid', paid_via: 'notification' });
    expect(await atPlatform('alipay', co.out_trade_no)).toBe('TRADE_SUCCESS');
  });

  test('a cancel Alipay asks to be sent again (`retry_flag: "Y"`) is sent again', async () => {
    expect((await sandboxPost(kit.url, '/faults', { alipayCancelRetries: 1 })).status).toBe(200);
    const prepayId = await newOrder(f, '13.00');
    expect((await f.client.codePay(prepayId, await codeOf('alipay', 'never'))).args.result).toBe('waiting');
    const [co] = await codeOrders(prepayId);
    // The clock stands still between the steps: the cancel asked again a second later is not asked before the test moves it.
    kit.clock.freeze();
    try {
      await kit.advance('31s');
      expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
      expect(await atPlatform('alipay', co.out_trade_no)).toBe('WAIT_BUYER_PAY');
      await kit.advance('1s');
      expect(await atPlatform('alipay', co.out_trade_no)).toBe('TRADE_CLOSED');
    } finally {
      kit.clock.resume();
    }
  });

  test('a code of no wallet is refused before any platform is asked; `/pay` and the own endpoint are one way', async () => {
    const prepayId = await newOrder(f, '14.00');
    for (const authCode of ['990000000000000000', '1300000000000000000000', '16000000000000000']) {
      const r = await f.client.call('POST', '/submerchant-pay/codePay', { body: { prepayId, authCode } });
      expect(r.httpStatus).toBe(400);
      expect(r.body).toMatchObject({ status: 'fail', error: 'invalid_request' });
      expect(String(r.body.msg)).toContain('authCode');
    }
    expect(await codeOrders(prepayId)).toEqual([]);
    const viaPay = (await f.client.call('POST', '/submerchant-pay/pay', { body: { prepayId, way: 'codePay', authCode: await codeOf('social', 'pay') } }))
      .body as PayAnswer<'codePay'>;
    expect(viaPay.args).toEqual({ result: 'paid', channel: 'SocialNative' });
    // A paid order takes no more codes.
    expect(await refusal(f.client.codePay(prepayId, await codeOf('alipay', 'pay')))).toMatchObject({ http: 409, error: 'order_not_active' });
  });

  test.each(['SocialNative', 'Alipay'])("the day's %s bill lists the codes as the platform does, and agrees with the kit", async (channel) => {
    const today = chinaDate(kit.clock.now());
    const report = await kit.runtime.services.reconciliation.reconcile(today, channel as 'SocialNative');
    const lines = await kit.runtime.db.db.selectFrom('recon_bill_lines').selectAll().where('day', '=', today).where('channel', '=', channel).execute();
    const codes = await kit.runtime.db.db
      .selectFrom('pay_channel_orders')
      .selectAll()
      .where('channel', '=', channel)
      .where('trade_type', '=', 'MICROPAY')
      .execute();
    // Every code the platform took money for is in the bill; those it gave back are not counted as paid.
    expect(lines.filter((l) => l.kind === 'payment' && codes.some((c) => c.out_trade_no === l.out_trade_no)).length).toBeGreaterThan(0);
    expect(report.differences.filter((d) => codes.some((c) => c.out_trade_no === d.outTradeNo))).toEqual([]);
  });
});
