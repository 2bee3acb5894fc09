/**
 * Ended jobs are deleted once their queue's retention has passed (housekeeping, `jobs/registry.ts`):
 * follow-ups after JOB_RETENTION, pending jobs never, callbacks never (they are the history the
 * console and the API show).
 */
import { purgeEndedJobs, PURGE_BATCH } from '../../src/jobs/housekeeping';
import type { JobHandler, JobKind } from '../../src/jobs/job-worker';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';

const DAY = 86_400_000;

describeEachBackend('job retention', (backend) => {
  let kit: TestKit;
  /** The service's queues and one no worker runs, kept like a follow-up (the workers must not take the test's jobs). */
  let kinds: JobKind[];
  const TEST_QUEUE = 'test.retention';
  beforeAll(async () => {
    kit = await startTestKit(backend, { JOB_RETENTION: '7d' });
    const followUp = kit.runtime.services.jobKinds.find((k) => k.handler.queue === 'payment.reconcile')!;
    kinds = [...kit.runtime.services.jobKinds, { ...followUp, handler: { queue: TEST_QUEUE } as JobHandler }];
  });
  afterAll(() => kit?.close());

  /** A job of `queue` that ended `daysAgo` days ago (or is still pending), as a worker leaves it. */
  async function jobThatEnded(queue: string, key: string, daysAgo: number | 'pending'): Promise<void> {
    const store = kit.runtime.services.jobs.store;
    const created = Date.now() - 30 * DAY;
    await store.enqueue(store.db, { queue, key, ref: key, at: created }, 'once', created);
    if (daysAgo === 'pending') return;
    const [job] = await store.claim(queue, Date.now(), 1, Date.now() + 60_000, `t-${key}`);
    expect(job.key).toBe(key);
    await store.settle(job.id, `t-${key}`, 1, { state: key.includes('failed') ? 'failed' : 'done', result: 'test' }, Date.now() - (daysAgo as number) * DAY);
  }

  const keysOf = async (queue: string) =>
    (await kit.runtime.services.jobs.store.db.selectFrom('jobs').select('key').where('queue', '=', queue).orderBy('key').execute()).map((r) => r.key);

  test('deletes follow-ups ended past JOB_RETENTION, keeps recent and pending ones and every callback', async () => {
    expect(kinds.at(-1)!.retentionMs).toBe(7 * DAY);
    for (const [key, ended] of [
      ['old-done', 8],
      ['old-failed', 9],
      ['recent-done', 6],
      ['still-pending', 'pending'],
    ] as const)
      await jobThatEnded(TEST_QUEUE, `ret-${key}`, ended);

    const purged = await purgeEndedJobs(kit.runtime.services.jobs.store, kinds);
    expect(purged).toEqual({ [TEST_QUEUE]: 2 });
    expect(await keysOf(TEST_QUEUE)).toEqual(['ret-recent-done', 'ret-still-pending']);
    // Nothing left to delete: a second turn deletes nothing and says nothing.
    expect(await purgeEndedJobs(kit.runtime.services.jobs.store, kinds)).toBeUndefined();
  });

  test('callbacks are kept however old', async () => {
    const store = kit.runtime.services.jobs.store;
    expect(kinds.find((k) => k.handler.queue === 'callback')!.retentionMs).toBeNull();
    // A callback job that ended a year ago, as the delivery worker leaves one.
    await store.db
      .insertInto('jobs')
      .values({
        queue: 'callback',
        key: 'ret-cb',
        ref: 'ret-cb',
        payload: '{}',
        state: 'done',
        result: 'delivered',
        attempts: 1,
        next_at: 0,
        lease_token: null,
        last_error: null,
        created_at: 0,
        updated_at: 0,
        done_at: Date.now() - 365 * DAY,
      })
      .execute();
    expect(await purgeEndedJobs(store, kinds)).toBeUndefined();
    expect(await keysOf('callback')).toContain('ret-cb');
  });

  test('a backlog larger than one statement is deleted in batches', async () => {
    const store = kit.runtime.services.jobs.store;
    const old = Date.now() - 30 * DAY;
    const rows = Array.from({ length: PURGE_BATCH + 7 }, (_, i) => ({
      queue: TEST_QUEUE,
      key: `ret-bulk-${i}`,
      ref: `ret-bulk-${i}`,
      payload: '{}',
      state: 'done' as const,
      result: 'refunded',
      attempts: 1,
      next_at: 0,
      lease_token: null,
      last_error: null,
      created_at: old,
      updated_at: old,
      done_at: old,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await store.db
        .insertInto('jobs')
        .values(rows.slice(i, i + 200))
        .execute();
    expect(await purgeEndedJobs(store, kinds)).toEqual({ [TEST_QUEUE]: PURGE_BATCH + 7 });
    expect(await keysOf(TEST_QUEUE)).toEqual(['ret-recent-done', 'ret-still-pending']);
  });
});
