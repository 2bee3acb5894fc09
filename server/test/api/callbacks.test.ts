/** Section 6 callbacks through real HTTP: signed delivery, retries, a receiver that is down, no URL, two workers on one database. */
import { verifyCallback } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payByCode, payFixture, startReceiver } from '../support/payments';
import { waitFor } from '../support/wait';

describeEachBackend('payment-result callbacks', (backend) => {
  let kit: TestKit;

  beforeAll(async () => {
    kit = await startTestKit(backend, { SANDBOX_REFUND_DELAY: '100ms' });
  });
  afterAll(() => kit.close());

  const history = (prepayId: string) => kit.runtime.services.callbacks.history(prepayId);
  const schedule = () => kit.runtime.config.CALLBACK_RETRY_SCHEDULE;
  /** The attempts due now, then every retry of the schedule's first `waits` waits, on the kit's clock (no waiting them out). */
  const attemptThrough = async (waits: readonly number[]) => {
    await kit.settle();
    for (const ms of waits) await kit.advance(ms);
  };

  test('finish and refunded arrive signed with the owning app’s secret and verify with shared/', async () => {
    const receiver = await startReceiver();
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/hooks/kit?shop=42` });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      const first = await waitFor(() => receiver.received[0], 'the finish callback');
      const event = verifyCallback({ method: 'POST', url: first.url, rawBody: first.body }, f.appSecret, { appId: f.appId });
      expect(event).toMatchObject({ prepayId, status: 'finish', subMerchantId: f.subId, merchantId: f.parentId });
      expect(Math.abs(Date.parse(event.notifyTime) - kit.clock.now())).toBeLessThan(60_000);
      expect(first.url).toMatch(/^\/hooks\/kit\?shop=42&_appid=/);
      expect(Object.keys(JSON.parse(first.body))).toEqual(['notifyTime', 'prepayId', 'status', 'subMerchantId', 'merchantId']);

      const token = (await f.client.login(f.subId, f.pw)).loginToken;
      expect((await f.client.refund(prepayId, token)).status).toBe('success');
      // The sandbox completes the refund (and notifies) after SANDBOX_REFUND_DELAY.
      await kit.advance(kit.runtime.config.SANDBOX_REFUND_DELAY);
      const second = await waitFor(() => receiver.received[1], 'the refunded callback');
      expect(verifyCallback({ url: second.url, rawBody: second.body }, f.appSecret).status).toBe('refunded');
      await waitFor(async () => (await history(prepayId)).every((c) => c.state === 'delivered'), 'both delivered');
      const rows = await history(prepayId);
      expect(rows.map((r) => [r.status, r.attempts, r.attemptLog[0].http_status, r.attemptLog[0].response_head])).toEqual([
        ['finish', 1, 200, 'OK'],
        ['refunded', 1, 200, 'OK'],
      ]);
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });

  test('a receiver that fails, then answers OK: retried, re-signed each time, every attempt recorded', async () => {
    const receiver = await startReceiver((_r, n) =>
      n === 1 ? { status: 500, body: 'database down' } : n === 2 ? { status: 200, body: 'received' } : { body: '  OK\n' },
    );
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const prepayId = await newOrder(f);
      await payByCode(kit, f, prepayId);
      // The first attempt and the two retries after it.
      await attemptThrough(schedule().slice(0, 2));
      await waitFor(async () => (await history(prepayId))[0]?.state === 'delivered', 'delivery');
      const [row] = await history(prepayId);
      expect(row.attempts).toBe(3);
      expect(row.attemptLog.map((a) => [a.attempt, a.http_status, a.response_head])).toEqual([
        [1, 500, 'database down'],
        [2, 200, 'received'],
        [3, 200, '  OK\n'],
      ]);
      for (const a of row.attemptLog) expect(a.latency_ms).toBeGreaterThanOrEqual(0);
      const ts = receiver.received.map((r) => new URL(r.url, 'http://x').searchParams.get('_t'));
      expect(new Set(ts).size).toBe(3);
      for (const r of receiver.received) expect(verifyCallback({ url: r.url, rawBody: r.body }, f.appSecret).prepayId).toBe(prepayId);
    } finally {
      await receiver.close();
    }
  });

  test('a receiver that is down: retried on the schedule, then given up, each failure recorded', async () => {
    const gone = await startReceiver();
    await gone.close();
    const f = await payFixture(kit, { notifyCallbackUrl: `${gone.url}/cb` });
    const prepayId = await newOrder(f);
    await payByCode(kit, f, prepayId);
    const waits = schedule();
    expect(waits.length).toBeGreaterThanOrEqual(12);
    await attemptThrough(waits);
    await waitFor(async () => (await history(prepayId))[0]?.state === 'failed', 'giving up');
    const [row] = await history(prepayId);
    expect(row.attempts).toBe(waits.length + 1);
    expect(row.attemptLog).toHaveLength(waits.length + 1);
    for (const a of row.attemptLog) {
      expect(a.http_status).toBeNull();
      expect(a.error).toMatch(/ECONNREFUSED|fetch failed/);
    }
    // The order itself is paid whatever happens to its callback.
    expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
  });

  test('no notifyCallbackUrl: recorded as undeliverable once, not retried', async () => {
    const f = await payFixture(kit);
    const prepayId = await newOrder(f);
    await payByCode(kit, f, prepayId);
    await waitFor(async () => (await history(prepayId))[0]?.state === 'undeliverable', 'undeliverable');
    // Past the whole retry schedule: a retry, had one been set, would have run by now.
    await attemptThrough(schedule());
    const [row] = await history(prepayId);
    expect(row.attempts).toBe(1);
    expect(row.attemptLog).toHaveLength(1);
    expect(row.attemptLog[0].error).toMatch(/no notifyCallbackUrl/);
  });

  // Several instances share PostgreSQL (docs/operations.md); SQLite is the single-instance default, and two
  // synchronous SQLite connections inside one test process would only block each other.
  const pgOnly = backend.name === 'postgres' ? test : test.skip;
  pgOnly('two service instances on one database never send a callback twice', async () => {
    const receiver = await startReceiver();
    const twin = await startTestKit(
      backend,
      { DATA_DIR: kit.runtime.config.DATA_DIR, DATABASE_SCHEMA: kit.runtime.db.schema, CALLBACK_POLL_INTERVAL: '10ms' },
      { clock: kit.clock },
    );
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await newOrder(f, '1.00'));
      await Promise.all(ids.map((id) => payByCode(kit, f, id)));
      await waitFor(() => receiver.received.length >= 20, '20 callbacks');
      // Everything due on either instance has run, the sandbox's duplicate notifications included.
      kit.clock.advance('1s');
      await Promise.all([kit.settle(), twin.settle()]);
      const got = receiver.received.map((r) => JSON.parse(r.body).prepayId).sort();
      expect(got).toEqual([...ids].sort());
    } finally {
      await twin.close();
      await receiver.close();
    }
  });
});
