/**
 * The runs that end done in the same turn are recorded together (`JobStore.settle`, a rush's
 * callbacks: docs/performance.md, "A rush's callback ends recorded together"): on PostgreSQL one
 * statement with their attempt rows, on SQLite the rows and the updates in one transaction, whatever
 * their number; each caller still learns whether its own claim held, and a run whose write fails
 * fails alone. A run alone goes as before. The background loops are slowed to an hour so that the
 * statements counted are the settlements' own.
 */
import type { Alongside } from '../../src/jobs/job-store';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';

const QUEUE = 'test.settle';
const ATTEMPT_COLUMNS = ['job_id', 'attempt', 'at', 'url', 'http_status', 'latency_ms', 'response_head', 'error'] as const;

describeEachBackend('done runs of one turn recorded together', (backend) => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(backend, {
      JOB_POLL_INTERVAL: '1h',
      CALLBACK_POLL_INTERVAL: '1h',
      EXPIRY_SWEEP_INTERVAL: '1h',
      CHAIN_SEAL_INTERVAL: '1h',
      INSTANCE_HELLO_INTERVAL: '1h',
    });
    await kit.settle();
  });
  afterAll(() => kit?.close());

  const store = () => kit.runtime.services.jobs.store;
  const statements = () => kit.runtime.db.statements.count;

  /** `n` jobs of the test queue (no worker runs it), claimed with `token`. */
  async function claimed(key: string, n: number, token: string) {
    const now = store().clock.now();
    for (let i = 0; i < n; i++) await store().enqueue(store().db, { queue: QUEUE, key: `${key}-${i}`, ref: `${key}-${i}` }, 'once', now);
    const jobs = await store().claim(QUEUE, now, n, now + 60_000, token);
    expect(jobs).toHaveLength(n);
    // In the order of their ids, as the checks below read them (a claim returns them in any order).
    return jobs.sort((a, b) => a.id - b.id);
  }

  /** An attempt row to record with a job's end, as callback delivery records one (`latency_ms` null breaks its NOT NULL). */
  function attempt(jobId: number, latencyMs: number | null = 12): Alongside {
    const row = {
      job_id: jobId,
      attempt: 1,
      at: store().clock.now(),
      url: 'http://127.0.0.1/cb',
      http_status: 200,
      latency_ms: latencyMs,
      response_head: 'OK',
      error: null,
    };
    return {
      into: { table: 'callback_attempts', columns: ATTEMPT_COLUMNS, values: ATTEMPT_COLUMNS.map((c) => row[c]) },
      write: () =>
        store()
          .db.insertInto('callback_attempts')
          .values(row as never)
          .execute(),
    };
  }

  const attemptsOf = async (ids: number[]) =>
    (await store().db.selectFrom('callback_attempts').select('job_id').where('job_id', 'in', ids).execute()).map((r) => Number(r.job_id)).sort((a, b) => a - b);
  const statesOf = async (ids: number[]) =>
    (await store().db.selectFrom('jobs').select(['id', 'state', 'result', 'lease_token']).where('id', 'in', ids).orderBy('id').execute()).map((r) => [
      r.state,
      r.result,
      r.lease_token,
    ]);

  test('three ends with their attempts in one statement on PostgreSQL, one transaction on SQLite; a lost claim is told apart', async () => {
    const jobs = await claimed('batch', 3, 'tok-a');
    const ids = jobs.map((j) => j.id);
    const before = statements();
    const held = await Promise.all(
      jobs.map((j, i) => store().settle(j.id, i === 1 ? 'another-claim' : 'tok-a', 1, { state: 'done', result: 'delivered', alongside: attempt(j.id) })),
    );
    const spent = statements() - before;
    expect(held).toEqual([true, false, true]);
    // PostgreSQL: one statement. SQLite: BEGIN, the rows, the updates, COMMIT (each alone: two per run).
    expect(spent).toBe(backend.name === 'postgres' ? 1 : 4);
    // Every attempt is recorded, as each was when alone; the run whose claim was lost stays as it was.
    expect(await attemptsOf(ids)).toEqual([...ids].sort((a, b) => a - b));
    expect(await statesOf(ids)).toEqual([
      ['done', 'delivered', null],
      ['pending', null, 'tok-a'],
      ['done', 'delivered', null],
    ]);
  });

  test('ends without a row alongside go together too; a run alone goes as before', async () => {
    const jobs = await claimed('plain', 2, 'tok-b');
    let before = statements();
    expect(await Promise.all(jobs.map((j) => store().settle(j.id, 'tok-b', 1, { state: 'done', result: 'ok' })))).toEqual([true, true]);
    expect(statements() - before).toBe(1);

    const [alone] = await claimed('alone', 1, 'tok-c');
    before = statements();
    expect(await store().settle(alone.id, 'tok-c', 1, { state: 'done', result: 'delivered', alongside: attempt(alone.id) })).toBe(true);
    expect(statements() - before).toBe(backend.name === 'postgres' ? 1 : 2);
    expect(await statesOf([...jobs.map((j) => j.id), alone.id])).toEqual([
      ['done', 'ok', null],
      ['done', 'ok', null],
      ['done', 'delivered', null],
    ]);
  });

  test('a run whose row cannot be written fails alone: the others of its turn are recorded', async () => {
    const jobs = await claimed('broken', 3, 'tok-d');
    const ids = jobs.map((j) => j.id);
    const results = await Promise.allSettled(
      jobs.map((j, i) => store().settle(j.id, 'tok-d', 1, { state: 'done', result: 'delivered', alongside: attempt(j.id, i === 2 ? null : 7) })),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(await attemptsOf(ids)).toEqual(ids.slice(0, 2).sort((a, b) => a - b));
    expect(await statesOf(ids)).toEqual([
      ['done', 'delivered', null],
      ['done', 'delivered', null],
      ['pending', null, 'tok-d'],
    ]);
  });
});
