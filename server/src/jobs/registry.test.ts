import { TestClock } from '@kit/shared/test-clock';
import { loadConfig } from '../configuration';
import { checkRegistry, kitJobs, type KitJobHandlers } from './registry';
import { Retry } from './retry';
import type { JobHandler } from './job-worker';

const clock = new TestClock({ frozen: true });

const handler = (queue: string) => ({ queue }) as unknown as JobHandler;
const handlers: KitJobHandlers = {
  profitSharingFollower: handler('profit-sharing.follow'),
  callbackDelivery: handler('callback'),
  paymentFollower: handler('payment.reconcile'),
  refundFollower: handler('refund.follow'),
  duplicateRefundFollower: handler('payment.duplicate'),
  dailyReconciliation: handler('reconcile.daily'),
};
const env = {
  CALLBACK_RETRY_SCHEDULE: '1s,2s,3s',
  PAYMENT_QUERY_SCHEDULE: '10s,20s,30s',
  PROFIT_SHARING_QUERY_SCHEDULE: '11s,21s,31s',
  RECONCILE_RETRY_SCHEDULE: '5m,10m,30m',
};
const config = loadConfig(env);
const policyOf = (queue: string) => kitJobs(config, handlers).find((k) => k.handler.queue === queue)!.retry;
/** The wait after run n (1-based) of a job of `queue`. */
const waitAfterRun = (queue: string, n: number) => new Retry(policyOf(queue), { attempts: n - 1 }, clock).nextWait();

describe('the job registry', () => {
  test('registers each queue once', () => {
    expect(checkRegistry(kitJobs(config, handlers)).map((k) => k.handler.queue)).toHaveLength(6);
    const again = kitJobs(config, handlers).find((k) => k.handler.queue === 'callback')!;
    expect(() => checkRegistry([...kitJobs(config, handlers), again])).toThrow(/twice/);
  });

  test('callbacks poll at CALLBACK_POLL_INTERVAL, the other queues at JOB_POLL_INTERVAL', () => {
    const own = loadConfig({ ...env, CALLBACK_POLL_INTERVAL: '40ms', JOB_POLL_INTERVAL: '3s' });
    const polls = Object.fromEntries(kitJobs(own, handlers).map((k) => [k.handler.queue, k.pollMs]));
    expect(polls).toEqual({
      callback: 40,
      'payment.reconcile': 3_000,
      'refund.follow': 3_000,
      'payment.duplicate': 3_000,
      'profit-sharing.follow': 3_000,
      'reconcile.daily': 3_000,
    });
  });

  test('follow-ups are kept JOB_RETENTION; callbacks and daily reconciliations, the history people read, are kept', () => {
    const own = loadConfig({ ...env, JOB_RETENTION: '2d' });
    const kept = Object.fromEntries(kitJobs(own, handlers).map((k) => [k.handler.queue, k.retentionMs]));
    expect(kept).toEqual({
      callback: null,
      'reconcile.daily': null,
      'payment.reconcile': 172_800_000,
      'refund.follow': 172_800_000,
      'payment.duplicate': 172_800_000,
      'profit-sharing.follow': 172_800_000,
    });
  });

  test('jobs due at once wait the schedule from its first wait after their first run', () => {
    expect(waitAfterRun('callback', 1)).toBe(1_000);
    expect(waitAfterRun('reconcile.daily', 1)).toBe(5 * 60_000);
    expect(waitAfterRun('reconcile.daily', 2)).toBe(10 * 60_000);
    // Then its last wait repeats: a bill can be late for days.
    expect(waitAfterRun('reconcile.daily', 9)).toBe(30 * 60_000);
    // A second payment is refunded at once, then its refund followed on the payment schedule.
    expect(waitAfterRun('payment.duplicate', 1)).toBe(10_000);
    expect(waitAfterRun('payment.duplicate', 9)).toBe(30_000);
  });

  test("follow-up jobs, added due after the schedule's first wait, go on from its second", () => {
    expect(waitAfterRun('payment.reconcile', 1)).toBe(20_000);
    expect(waitAfterRun('refund.follow', 1)).toBe(20_000);
    expect(waitAfterRun('profit-sharing.follow', 1)).toBe(21_000);
  });
});
