/**
 * Alipay's daily bill in the reconciliation (docs/reconciliation.md) through real HTTP: orders paid
 * and refunded with Alipay in the sandbox, whose stand-in answers
 * `alipay.data.dataservice.bill.downloadurl.query` with a 30-second link to a ZIP of GBK CSV files;
 * the kit reads it per authorizing merchant into the same report and kinds of difference as the
 * social channel's. `npm run kit -- reconcile` without `--channel` reconciles every channel with a
 * bill, one JSON report per line.
 */
import { randomBytes } from 'node:crypto';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { newOrder, sandboxPost, startReceiver, type PayFixture } from '../support/payments';
import { runKitCommand } from '../support/process';
import { addDays, chinaDate } from '../../src/reconciliation/china-day';
import { waitFor } from '../support/wait';

describeEachBackend('reconciliation with Alipay bills', (backend) => {
  let kit: TestKit;
  let env: NodeJS.ProcessEnv;
  let f: PayFixture;
  let token: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    env = { ...backend.env(), RECONCILE_RETRY_SCHEDULE: '1h' };
    kit = await startTestKit(backend, env);
    receiver = await startReceiver();
    const app = await kit.newApp();
    // The shop's name is the bill's 商品名称: its comma is part of the value.
    const m = await createMerchants(app.client, app.appId, { parent: 'Acme, Inc.', sub: 'Acme, Inc., Shop 3' });
    await app.client.setPaymentParams(m.parentId, 'Alipay', {
      appAuthToken: `appAuthToken_recon_${randomBytes(4).toString('hex')}`,
      notifyCallbackUrl: `${receiver.url}/cb`,
    });
    f = { ...app, ...m };
    token = (await f.client.login(f.subId, f.pw)).loginToken;
  });
  afterEach(() => sandboxPost(kit.url, '/faults', {}));
  afterAll(async () => {
    await kit.close();
    await receiver.close();
  });

  const outTradeNo = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].out_trade_no;
  const paidOrder = async (amount: string) => {
    const prepayId = await newOrder(f, amount);
    const code = await f.client.alipayNative(prepayId);
    expect((await sandboxPost(kit.url, '/alipay/pay', { qrCode: code.args.qr_code })).status).toBe(200);
    expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    return prepayId;
  };
  const reconcile = (...args: string[]) => runKitCommand(['reconcile', ...args], env);
  const reportsOf = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

  test('a paid and refunded order reconciles clean; an unknown payment and a changed amount are differences; one line per channel', async () => {
    const today = chinaDate(Date.now());
    const refunded = await paidOrder('12.34');
    expect((await f.client.refund(refunded, token)).status).toBe('success');
    await waitFor(async () => (await f.client.prepayDetail(refunded)).status === 'refunded', 'refunded');
    const refundNo = (await kit.runtime.services.payments.state(refunded)).refund!.out_refund_no;

    // The bill has the payment and its refund, as the kit has them: nothing to report.
    const clean = await reconcile('--date', today, '--channel', 'Alipay');
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(reportsOf(clean.stdout)).toEqual([
      {
        date: today,
        channel: 'Alipay',
        state: 'done',
        // The sandbox charges 0.60 % and gives it back with the refund.
        totals: { payments: { count: 1, amount: '12.34' }, refunds: { count: 1, amount: '12.34' }, fees: '0.00', net: '0.00' },
        differences: [],
      },
    ]);
    const lines = await kit.runtime.db.db.selectFrom('recon_bill_lines').selectAll().where('day', '=', today).where('channel', '=', 'Alipay').execute();
    expect(lines.map((l) => [l.kind, l.out_trade_no, l.out_refund_no, l.status, Number(l.amount_cents)])).toEqual([
      ['payment', await outTradeNo(refunded), null, '交易', 1234],
      ['refund', await outTradeNo(refunded), refundNo, '退款', 1234],
    ]);
    // The merchant's Alipay account as the bill names it (the authorization itself is a secret, never stored with the lines).
    expect(lines[0].sub_mch_id).toMatch(/^2088\d{12}0156$/);

    // A payment the kit never saw, and one the bill states a cent higher.
    const changed = await paidOrder('5.00');
    const changedNo = await outTradeNo(changed);
    expect((await sandboxPost(kit.url, '/faults', { billExtraPayments: 1, billAmountChanged: [changedNo] })).status).toBe(200);
    const run = await reconcile('--date', today);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Without --channel: every channel with a bill, one report per line, each naming its channel.
    const reports = reportsOf(run.stdout);
    expect(reports.map((r) => r.channel).sort()).toEqual(['Alipay', 'SocialNative']);
    const social = reports.find((r) => r.channel === 'SocialNative');
    expect(social).toMatchObject({ date: today, state: 'done' });
    const alipay = reports.find((r) => r.channel === 'Alipay');
    expect(alipay).toEqual({
      date: today,
      channel: 'Alipay',
      state: 'done',
      // Fees: 0.07 + 0.03 + 0.01 charged, 0.07 given back.
      totals: { payments: { count: 3, amount: '18.36' }, refunds: { count: 1, amount: '12.34' }, fees: '0.04', net: '5.98' },
      differences: [
        {
          kind: 'amount_mismatch',
          outTradeNo: changedNo,
          prepayId: changed,
          kit: { status: 'finish', amount: '5.00' },
          channel: { status: '交易', amount: '5.01' },
          resolution: 'open',
        },
        { kind: 'channel_only', outTradeNo: expect.stringMatching(/^SBXONLY/), kit: null, channel: { status: '交易', amount: '1.01' }, resolution: 'open' },
      ],
    });

    // The merchant's app reads both: the unknown payment is its own by the account its parameters name.
    const own = await f.client.reconciliation(today);
    expect(own.data.reports.find((r) => r.channel === 'Alipay')?.differences).toEqual(alipay.differences);
    const other = await kit.newApp();
    expect((await other.client.reconciliation(today)).data.reports.find((r) => r.channel === 'Alipay')?.differences).toEqual([]);
    // The refunded order stayed as it was: one finish, one refunded callback.
    expect((await kit.runtime.services.callbacks.history(refunded)).map((c) => c.status)).toEqual(['finish', 'refunded']);
  });

  test('a day whose bill Alipay has not made yet is "not ready"; a day without trade is done and empty; a spoiled archive is refused', async () => {
    const today = chinaDate(Date.now());
    // The stand-in answers isp.bill_not_exist for a day to come: before the next morning that means "ask again later".
    const later = addDays(today, 2);
    const notReady = await reconcile('--date', later, '--channel', 'Alipay');
    // Not out yet is no failure: the day is pending, the command ends well.
    expect(notReady.code).toBe(0);
    expect(JSON.parse(notReady.stdout)).toEqual({
      date: later,
      channel: 'Alipay',
      state: 'pending',
      error: `the Alipay bill of ${later} is not ready yet (Alipay makes the bill of a day by 9:00 China time the next day)`,
    });
    expect(notReady.stderr).toContain(`The Alipay bill of ${later} is not out yet`);
    expect(await kit.runtime.services.reconciliation.report(later, 'Alipay')).toBeNull();
    expect((await f.client.reconciliations()).data.reports.find((r) => r.date === later)).toEqual({
      date: later,
      channel: 'Alipay',
      state: 'pending',
      error: expect.stringContaining('is not ready yet'),
      differences: 0,
      open: 0,
    });

    // Long past, no trade: no bill is an answer.
    const past = addDays(today, -5);
    const empty = await reconcile('--date', past, '--channel', 'Alipay');
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toMatchObject({ channel: 'Alipay', state: 'done', differences: [], totals: { payments: { count: 0, amount: '0.00' } } });

    // Today's archive cut short in transfer: the whole day is refused, the report stays as it was.
    await paidOrder('1.00');
    const before = await kit.runtime.services.reconciliation.report(today, 'Alipay');
    expect((await sandboxPost(kit.url, '/faults', { bills: 'truncated' })).status).toBe(200);
    await expect(kit.runtime.services.reconciliation.reconcile(today, 'Alipay')).rejects.toThrow(
      /the Alipay bill of .* of merchant auth-[0-9a-f]{16} cannot be read: /,
    );
    expect(await kit.runtime.services.reconciliation.report(today, 'Alipay')).toEqual(before);
  });
});
