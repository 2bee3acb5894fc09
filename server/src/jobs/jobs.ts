/**
 * The one delivery mechanism for background work, so that money paths converge on their own
 * (docs/architecture.md): services add jobs inside the transactions that make them necessary, and
 * wake this process's worker of the queue once the transaction has committed; workers on any
 * instance claim and run them (`workers/job-worker.ts`).
 */
import type { Executor } from '../db/schema';
import type { QueueName } from './job-tables';
import type { JobRow, JobSettlement, JobStore, NewJob } from './job-store';

export class Jobs {
  private readonly wakers = new Map<QueueName, () => void>();

  constructor(readonly store: JobStore) {}

  /** Adds a job on the caller's executor; see `JobStore.enqueue` for `mode`. Wake the queue after the commit. */
  enqueue(on: Executor, job: NewJob, mode: 'once' | 'rearm' = 'once'): Promise<boolean> {
    return this.store.enqueue(on, job, mode);
  }

  /** Ends a pending job whose work was done another way. */
  finish(on: Executor, queue: QueueName, key: string, result: string): Promise<boolean> {
    return this.store.finish(on, queue, key, result);
  }

  /** Runs the queue's worker in this process now instead of at its next poll. */
  wake(queue: QueueName): void {
    this.wakers.get(queue)?.();
  }

  /** The worker of a queue registers how to be woken; the returned function unregisters it. */
  onWake(queue: QueueName, wake: () => void): () => void {
    this.wakers.set(queue, wake);
    return () => {
      if (this.wakers.get(queue) === wake) this.wakers.delete(queue);
    };
  }

  history(queue: QueueName, ref: string): Promise<JobRow[]> {
    return this.store.byRef(queue, ref);
  }
}

/** Wait before run `n + 1` from a schedule of waits; after its end, its last wait repeats when `repeatLast`. */
export function scheduledWait(schedule: readonly number[], runsSoFar: number, repeatLast = false): number | undefined {
  if (runsSoFar < schedule.length) return schedule[runsSoFar];
  return repeatLast && schedule.length ? schedule[schedule.length - 1] : undefined;
}

/**
 * The end of a run that must be followed by another on the schedule (counting this one): pending
 * until the next wait; when the schedule is over, its last wait again (`repeatLast`) or done with
 * `whenOver`.
 */
export function onSchedule(schedule: readonly number[], job: JobRow, opts: { repeatLast?: boolean; error?: string; whenOver?: string } = {}): JobSettlement {
  const wait = scheduledWait(schedule, job.attempts + 1, opts.repeatLast);
  if (wait === undefined) return { state: 'done', result: opts.whenOver ?? 'schedule over' };
  return { state: 'pending', nextAt: Date.now() + wait, error: opts.error };
}
