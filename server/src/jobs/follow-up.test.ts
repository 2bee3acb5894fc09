import { TestClock } from '@kit/shared/test-clock';
import { KitError } from '@kit/shared';
import type { JobRow, JobSettlement } from './job-store';
import { FollowUp, type FollowUpRules } from './follow-up';
import { Retry, type RetryPolicy } from './retry';

const clock = new TestClock({ frozen: true });

const policy: RetryPolicy = { schedule: [10, 20, 30], firstWaitBeforeFirstRun: true, whenOver: { done: 'unpaid' }, unreachable: 'repeat-last' };
const job = { id: 1, attempts: 4, key: 'k' } as JobRow;

function rules(follow: FollowUpRules['follow']): FollowUpRules {
  return {
    queue: 'test.follow',
    channelCalls: 3,
    metricKind: 'payment_query',
    outcome: (s: JobSettlement) => (s.state === 'done' ? 'paid' : 'failed'),
    follow,
  };
}

describe('the follow-up frame', () => {
  it('leases a run for every channel call it may make, plus a margin', () => {
    const f = new FollowUp(
      rules(async () => ({ state: 'done' })),
      { channelTimeoutMs: 1_000 },
    );
    expect(f.leaseMs).toBe(3 * 1_000 + 5_000);
    expect(f.queue).toBe('test.follow');
  });

  it('counts every run with its outcome', async () => {
    const counted: string[] = [];
    const f = new FollowUp(
      rules(async () => ({ state: 'done', result: 'paid' })),
      { channelTimeoutMs: 1 },
      { reconciliation: (k, o) => counted.push(`${k}:${o}`) },
    );
    expect(await f.run(job, new AbortController().signal, new Retry(policy, job, clock))).toEqual({ state: 'done', result: 'paid' });
    expect(counted).toEqual(['payment_query:paid']);
  });

  it('asks an unreachable channel again under the policy, past its schedule', async () => {
    const counted: string[] = [];
    const f = new FollowUp(
      rules(async () => {
        throw new KitError('channel_unavailable', 'timed out');
      }),
      { channelTimeoutMs: 1 },
      { reconciliation: (k, o) => counted.push(`${k}:${o}`) },
    );
    const s = await f.run(job, new AbortController().signal, new Retry(policy, job, clock));
    expect(s).toMatchObject({ state: 'pending', error: 'timed out' });
    expect(counted).toEqual(['payment_query:failed']);
  });

  it('lets other failures through to the worker (a bug, the database away)', async () => {
    const f = new FollowUp(
      rules(async () => {
        throw new Error('boom');
      }),
      { channelTimeoutMs: 1 },
    );
    await expect(f.run(job, new AbortController().signal, new Retry(policy, job, clock))).rejects.toThrow('boom');
  });
});
