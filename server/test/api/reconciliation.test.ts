/**
 * Daily statement reconciliation (docs/reconciliation.md) through real HTTP against the sandbox's
 * bills and faults (docs/sandbox.md): bills in the platform's bytes whose shop name holds commas,
 * every kind of difference and its resolution, a payment and a refund the kit never heard of settled
 * once with one callback, a kit-only line carried to the next day, bills that are not ready, cut
 * short or absent, and idempotent re-runs; `npm run kit -- reconcile` as an operator runs it, in its
 * own process next to the service.
 */
import { devV3Material } from '@kit/sandbox';
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payByCode, payFixture, payApi, startReceiver, type PayFixture } from '../support/payments';
import { runKitCommand, startServiceProcess } from '../support/process';
import { addDays, chinaDate, chinaDayRange } from '../../src/reconciliation/china-day';
import { waitFor } from '../support/wait';

async function setFaults(kit: TestKit, faults: object) {
  const res = await fetch(`${kit.url}/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  if (res.status !== 200) throw new Error(`faults: ${await res.text()}`);
}

const callbacksOf = (received: Array<{ body: string }>, prepayId: string) =>
  received
    .map((r) => JSON.parse(r.body))
    .filter((b) => b.prepayId === prepayId)
    .map((b) => b.status as string);

describeEachBackend(
  'daily statement reconciliation',
  (backend) => {
    let kit: TestKit;
    let env: NodeJS.ProcessEnv;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let f: PayFixture;
    let token: string;

    beforeAll(async () => {
      env = {
        ...backend.env(),
        // Neither order queries nor refund queries find anything in time: only the bill tells.
        PAYMENT_QUERY_SCHEDULE: '1h',
        SANDBOX_REFUND_DELAY: '100ms',
        // Any instance runs the daily job once it is added (this one adds none: RECONCILE_AT is off here).
        RECONCILE_RETRY_SCHEDULE: '300ms',
      };
      kit = await startTestKit(backend, env);
      receiver = await startReceiver();
      // The shop's name is the product name (商品名称) of its bill lines: commas in it are part of the value.
      f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` }, { parent: 'Acme, Inc.', sub: 'Acme, Inc., Shop 3, East Gate' });
      token = (await f.client.login(f.subId, f.pw)).loginToken;
    });
    afterEach(() => setFaults(kit, {}));
    afterAll(async () => {
      await kit.close();
      await receiver.close();
    });

    const outTradeNo = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].out_trade_no;
    const paidOrder = async (amount: string) => {
      const prepayId = await newOrder(f, amount);
      await payByCode(kit, f, prepayId);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      return prepayId;
    };
    // As an operator runs it next to the service: the same settings, and nothing saying where the service is (it finds it).
    // This channel's bill only (without --channel every channel with a bill runs: reconciliation-alipay.test.ts).
    const kitCommand = (date: string) => runKitCommand(['reconcile', '--date', date, '--channel', 'SocialNative'], env);

    test('a day with every kind of difference: found, settled once, reported, and a second run changes nothing', async () => {
      const today = chinaDate(Date.now());

      // A payment whose notification was lost (and whose queries come too late).
      await setFaults(kit, { payNotifications: 'drop' });
      const lost = await newOrder(f, '3.21');
      await payByCode(kit, f, lost);
      await setFaults(kit, {});
      // A refund whose notification was lost.
      const refundedOrder = await paidOrder('4.56');
      await setFaults(kit, { refundNotifications: 'drop' });
      expect(await payApi.refund(f.client, refundedOrder, token)).toMatchObject({ httpStatus: 200 });
      await setFaults(kit, {});
      const changed = await paidOrder('5.00');
      const omitted = await paidOrder('6.00');
      const nextDay = await paidOrder('7.00');
      const [lostNo, changedNo, omittedNo, nextDayNo] = await Promise.all([lost, changed, omitted, nextDay].map(outTradeNo));
      const refundNo = (await kit.runtime.services.payments.state(refundedOrder)).refund!.out_refund_no;
      expect((await f.client.prepayDetail(lost)).status).toBe('active');
      expect((await kit.runtime.services.payments.state(refundedOrder)).refund!.state).not.toBe('success');
      // The refund has completed at the platform (SANDBOX_REFUND_DELAY on the kit's clock).
      await kit.advance(kit.runtime.config.SANDBOX_REFUND_DELAY);

      await setFaults(kit, { billExtraPayments: 1, billAmountChanged: [changedNo], billOmitted: [omittedNo], billNextDay: [nextDayNo] });
      const run = await kitCommand(today);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(report).toMatchObject({ date: today, channel: 'SocialNative', state: 'done' });
      const byKind = (kind: string) => report.differences.filter((d: any) => d.kind === kind);
      expect(byKind('status_mismatch')).toEqual(
        expect.arrayContaining([
          {
            kind: 'status_mismatch',
            outTradeNo: lostNo,
            prepayId: lost,
            kit: { status: 'active', amount: '3.21' },
            channel: { status: 'SUCCESS', amount: '3.21' },
            resolution: 'settled',
          },
          {
            kind: 'status_mismatch',
            outTradeNo: await outTradeNo(refundedOrder),
            outRefundNo: refundNo,
            prepayId: refundedOrder,
            kit: { status: expect.stringMatching(/^(requesting|accepted)$/), amount: '4.56' },
            channel: { status: 'SUCCESS', amount: '4.56' },
            resolution: 'refunded',
          },
        ]),
      );
      expect(byKind('amount_mismatch')).toEqual([
        {
          kind: 'amount_mismatch',
          outTradeNo: changedNo,
          prepayId: changed,
          kit: { status: 'finish', amount: '5.00' },
          channel: { status: 'SUCCESS', amount: '5.01' },
          resolution: 'open',
        },
      ]);
      expect(byKind('channel_only')).toEqual([
        { kind: 'channel_only', outTradeNo: expect.stringMatching(/^SBXONLY/), kit: null, channel: { status: 'SUCCESS', amount: '1.01' }, resolution: 'open' },
      ]);
      expect(byKind('kit_only')).toEqual(
        expect.arrayContaining([
          {
            kind: 'kit_only',
            outTradeNo: omittedNo,
            prepayId: omitted,
            kit: { status: 'finish', amount: '6.00' },
            channel: null,
            resolution: 'pending_next_day',
          },
          {
            kind: 'kit_only',
            outTradeNo: nextDayNo,
            prepayId: nextDay,
            kit: { status: 'finish', amount: '7.00' },
            channel: null,
            resolution: 'pending_next_day',
          },
        ]),
      );
      // Bill totals: the decimal strings of what the bill says.
      expect(report.totals).toMatchObject({
        payments: { count: expect.any(Number), amount: expect.stringMatching(/^\d+\.\d{2}$/) },
        fees: expect.stringMatching(/^\d+\.\d{2}$/),
      });

      // Settled through the notification path: one transition, one callback each.
      expect((await f.client.prepayDetail(lost)).status).toBe('finish');
      // The console's timeline tells how the kit learned of it.
      expect((await kit.runtime.services.payments.state(lost)).channelOrders.find((co) => co.paid_via)?.paid_via).toBe('reconciliation');
      await waitFor(() => callbacksOf(receiver.received, lost).length === 1 && callbacksOf(receiver.received, refundedOrder).includes('refunded'), 'callbacks');
      expect((await f.client.prepayDetail(refundedOrder)).status).toBe('refunded');

      // Running the same day again settles nothing twice and finds the same open differences.
      const again = await kitCommand(today);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual(report);
      // Whatever the second run set going is due now: it has run (a callback too many would be in).
      await kit.settle();
      expect(callbacksOf(receiver.received, lost)).toEqual(['finish']);
      expect(callbacksOf(receiver.received, refundedOrder)).toEqual(['finish', 'refunded']);

      // A merchant app reads the day's differences of its own merchants, signed; another app sees none of them.
      const own = await f.client.reconciliation(today);
      expect(own.data.reports).toHaveLength(1);
      expect(own.data.reports[0].differences).toEqual(report.differences);
      const other = await kit.newApp();
      expect((await other.client.reconciliation(today)).data.reports[0].differences).toEqual([]);
      expect(await other.client.call<any>('GET', '/reconciliation/2026-13-01')).toMatchObject({ httpStatus: 400, body: { error: 'invalid_request' } });
      expect(await other.client.call<any>('GET', '/reconciliation/2001-01-01')).toMatchObject({ httpStatus: 404, body: { error: 'not_found' } });
      // The list the console shows: the day with the counts of the caller's own differences.
      const openCount = report.differences.filter((d: any) => d.resolution === 'open').length;
      expect((await f.client.reconciliations()).data.reports).toContainEqual({
        date: today,
        channel: 'SocialNative',
        state: 'done',
        differences: report.differences.length,
        open: openCount,
      });
      expect((await other.client.reconciliations({ limit: 5 })).data.reports).toContainEqual({
        date: today,
        channel: 'SocialNative',
        state: 'done',
        differences: 0,
        open: 0,
      });
      expect(await other.client.call<any>('GET', '/reconciliation', { query: { limit: '0' } })).toMatchObject({
        httpStatus: 400,
        body: { error: 'invalid_request' },
      });
      const unsigned = await fetch(`${kit.url}/reconciliation/${today}`);
      expect(unsigned.status).toBe(401);

      // The next day's bill has the payment booked there and lacks the omitted one.
      const tomorrow = await kit.runtime.services.reconciliation.reconcile(addDays(today, 1), 'SocialNative');
      expect(tomorrow.differences).toEqual([]);
      const metrics = await (await fetch(`${kit.url}/metrics`)).text();
      expect(metrics).toContain(`kit_reconciliation_last_day_seconds{channel="SocialNative"} ${Math.floor(chinaDayRange(addDays(today, 1)).from / 1000)}`);
      expect(metrics).toMatch(/kit_reconciliation_differences_total\{channel="SocialNative",kind="kit_only",resolution="found_next_day"\} 1\b/);
      expect(metrics).toMatch(/kit_reconciliation_differences_total\{channel="SocialNative",kind="kit_only",resolution="open"\} 1\b/);
      const carried = (await kit.runtime.services.reconciliation.report(today, 'SocialNative'))!.differences.filter((d) => d.kind === 'kit_only');
      expect(carried).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ outTradeNo: omittedNo, resolution: 'open' }),
          expect.objectContaining({ outTradeNo: nextDayNo, resolution: 'found_next_day' }),
        ]),
      );
    });

    test('a bill not ready, cut short, or absent: a clear error and no report marked done, or an empty day', async () => {
      const day = addDays(chinaDate(Date.now()), -3);
      await setFaults(kit, { bills: 'creating' });
      const notReady = await kitCommand(day);
      // A bill not out yet is no failure: the day is pending and the command ends well.
      expect(notReady.code).toBe(0);
      // The platform's own words for a bill being made: `STATEMENT_CREATING` on v3, `Bill Creating` on v2.
      const creating = backend.protocol === 'v3' ? 'STATEMENT_CREATING' : 'Bill Creating';
      // A report for scripts on stdout, the explanation for a person on stderr.
      expect(JSON.parse(notReady.stdout)).toEqual({
        date: day,
        channel: 'SocialNative',
        state: 'pending',
        error: `the SocialNative bill of ${day} is not ready yet (${creating})`,
      });
      expect(notReady.stderr).toContain(`The SocialNative bill of ${day} is not out yet: the SocialNative bill of ${day} is not ready yet (${creating})`);
      expect(await kit.runtime.services.reconciliation.report(day, 'SocialNative')).toBeNull();
      const listed = await kit.runtime.services.reconciliation.listForMerchants([], 10);
      expect(listed.find((r) => r.date === day)).toMatchObject({ state: 'pending', error: expect.stringContaining(creating) });
      // The pending day is the daily job's now: it is tried again on RECONCILE_RETRY_SCHEDULE, not left pending.
      expect(notReady.stderr).toContain("the service's daily job tries it again");
      const retry = await kit.runtime.db.db
        .selectFrom('jobs')
        .selectAll()
        .where('queue', '=', 'reconcile.daily')
        .where('key', '=', `${day}/SocialNative`)
        .execute();
      expect(retry).toEqual([expect.objectContaining({ state: 'pending' })]);

      // Today's bill, cut in the middle of its lines.
      const today = chinaDate(Date.now());
      await paidOrder('1.00');
      await setFaults(kit, { bills: 'truncated' });
      const before = await kit.runtime.services.reconciliation.report(today, 'SocialNative');
      // v3 publishes the file's SHA1 in a verified answer, so a file cut short fails its hash first; v2 has no hash, the parser finds the cut.
      const cut = backend.protocol === 'v3' ? /the downloaded bill of .* does not match its hash/ : /cannot be read: bill line \d+: /;
      await expect(kit.runtime.services.reconciliation.reconcile(today, 'SocialNative')).rejects.toThrow(cut);
      expect(await kit.runtime.services.reconciliation.report(today, 'SocialNative')).toEqual(before);

      // No statement (no trade that day) is an answer: the day is done, empty.
      await setFaults(kit, {});
      const empty = await kitCommand(day);
      expect(empty.code).toBe(0);
      expect(JSON.parse(empty.stdout)).toEqual({
        date: day,
        channel: 'SocialNative',
        state: 'done',
        totals: { payments: { count: 0, amount: '0.00' }, refunds: { count: 0, amount: '0.00' }, fees: '0.00', net: '0.00' },
        differences: [],
      });
    });

    test('the daily job: retried while the bill is not ready, and the day reconciled once (two instances on PostgreSQL)', async () => {
      const yesterday = addDays(chinaDate(Date.now()), -1);
      await setFaults(kit, { bills: 'creating' });
      // More instances on the same database, asking the first one's sandbox for bills with its development
      // keys as their settings. Several instances need PostgreSQL (docs/operations.md); on SQLite one more
      // runs in its own process.
      const daily = { ...env, ...devV3Material(env.DATA_DIR!).settings, RECONCILE_AT: '00:00', PAY_GATEWAY_URL: `${kit.url}/sandbox` };
      // The instances in this process run on the kit's clock; the one in its own process on the machine's.
      const instances =
        backend.name === 'postgres'
          ? await Promise.all([startTestKit(backend, daily, { clock: kit.clock }), startTestKit(backend, daily, { clock: kit.clock })])
          : [await startServiceProcess(daily)];
      try {
        const { db } = kit.runtime.db;
        const job = () => db.selectFrom('jobs').selectAll().where('queue', '=', 'reconcile.daily').where('key', '=', `${yesterday}/SocialNative`).execute();
        // The retries come by moving the clock, one RECONCILE_RETRY_SCHEDULE wait at a time, until `done`
        // (every instance runs the job: this one, and those it started).
        const retriesUntil = (done: () => Promise<boolean>, what: string) =>
          waitFor(async () => {
            if (await done()) return true;
            kit.clock.advance(kit.runtime.config.RECONCILE_RETRY_SCHEDULE[0]);
            await Promise.all([kit.settle(), ...instances.map((i) => ('runtime' in i ? i.settle() : undefined))]);
            return false;
          }, what);
        await retriesUntil(async () => ((await job())[0]?.attempts ?? 0) >= 2, 'attempts while the bill is being made');
        expect(await kit.runtime.services.reconciliation.report(yesterday, 'SocialNative')).toBeNull();
        expect((await job())[0]).toMatchObject({ state: 'pending', last_error: expect.stringMatching(/not ready yet/) });

        await setFaults(kit, {});
        await retriesUntil(async () => (await job())[0]?.state === 'done', 'the daily job done');
        const [row] = await job();
        expect(await kit.runtime.services.reconciliation.report(yesterday, 'SocialNative')).toMatchObject({ date: yesterday, state: 'done' });
        // Every run of the day was a run of that one job: no instance ran it on its own.
        const report = await db.selectFrom('recon_reports').selectAll().where('day', '=', yesterday).where('channel', '=', 'SocialNative').execute();
        expect(report).toHaveLength(1);
        expect(report[0].runs).toBe(row.attempts);
        // The schedulers keep adding the due days: still the one job.
        for (const i of instances) if ('runtime' in i) await i.runtime.services.dailyReconciliation.enqueueDue();
        expect(await job()).toHaveLength(1);
      } finally {
        await Promise.all(instances.map((i) => ('runtime' in i ? i.close() : i.stop())));
      }
    }, 90_000);

    test('the kit command refuses a malformed date with its usage line', async () => {
      const run = await runKitCommand(['reconcile', '--date', '2026-02-30'], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--date must be a date written YYYY-MM-DD\nusage: npm run kit -- reconcile --date YYYY-MM-DD/);
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
