/**
 * A queue's retry policy, as data (`jobs/registry.ts` gives each queue its own), and what a
 * handler's run uses to end "again later" by it. Handlers decide *whether* to run again (their
 * rules); the policy decides *when*, and what happens once its schedule is over.
 */
import type { Clock } from '@kit/shared/clock';
import type { JobRow, JobSettlement } from './job-store';

export interface RetryPolicy {
  /** The waits (ms), from a setting (CALLBACK_RETRY_SCHEDULE, PAYMENT_QUERY_SCHEDULE, …). */
  schedule: readonly number[];
  /**
   * Whether the schedule's first wait is the one before the first run: a query schedule, whose
   * job is added due then, so run n is followed by wait n + 1. Otherwise (a retry schedule: the
   * first run is at once) run n is followed by wait n.
   */
  firstWaitBeforeFirstRun: boolean;
  /**
   * After the schedule's last wait: `repeat-last` (again at its last wait, for ever), `done`
   * with a result (the run's rules leave the rest to someone else), or `give-up` (the job fails).
   */
  whenOver: 'repeat-last' | 'give-up' | { done: string };
  /**
   * When the channel (or another party) cannot be reached at all: keep asking at the schedule's
   * last wait even when the schedule is over, instead of `whenOver`.
   */
  unreachable?: 'repeat-last';
}

/** A run that throws (a bug, the database away) comes back after this, whatever the queue. */
export const CRASHED_RUN_RETRY_MS = 5_000;

/** The wait before the run after `job`'s current one, or undefined when the schedule is over (and not repeated). */
export function nextWait(policy: RetryPolicy, job: Pick<JobRow, 'attempts'>, repeatLast = policy.whenOver === 'repeat-last'): number | undefined {
  const { schedule } = policy;
  const i = job.attempts + (policy.firstWaitBeforeFirstRun ? 1 : 0);
  if (i < schedule.length) return schedule[i];
  return repeatLast && schedule.length ? schedule[schedule.length - 1] : undefined;
}

/** How one run of a job ends "again later" under its queue's policy. */
export class Retry {
  constructor(
    readonly policy: RetryPolicy,
    private readonly job: Pick<JobRow, 'attempts'>,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** The wait before the next run, or undefined when the schedule is over. */
  nextWait(): number | undefined {
    return nextWait(this.policy, this.job);
  }

  /** Again at the policy's next wait; once it is over, what `whenOver` says. */
  later(error?: string): JobSettlement {
    return this.settle(nextWait(this.policy, this.job), error);
  }

  /** The other side could not be reached: as `later`, but past the schedule too when the policy says `unreachable: 'repeat-last'`. */
  unreachable(error: string): JobSettlement {
    return this.settle(nextWait(this.policy, this.job, this.policy.whenOver === 'repeat-last' || this.policy.unreachable === 'repeat-last'), error);
  }

  private settle(wait: number | undefined, error: string | undefined): JobSettlement {
    if (wait !== undefined) return { state: 'pending', nextAt: this.clock.now() + wait, error };
    const over = this.policy.whenOver;
    if (over === 'give-up') return { state: 'failed', result: 'gave_up', error: error ?? 'retry schedule over' };
    return { state: 'done', result: over === 'repeat-last' ? 'schedule over' : over.done };
  }
}
