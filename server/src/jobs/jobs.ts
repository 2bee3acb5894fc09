/**
 * The one delivery mechanism for background work, so that money paths converge on their own
 * (docs/architecture.md): services add jobs inside the transactions that make them necessary, and
 * wake this process's worker of the queue once the transaction has committed; workers on any
 * instance claim and run them (`jobs/job-worker.ts`).
 */
import type { Executor } from '../db/schema';
import type { Guard } from '../db/write-chain';
import type { QueueName } from './job-tables';
import type { JobRow, JobStore, NewJob } from './job-store';

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

  /** `enqueue` (`once`) as a step of a chain of writes (`db/write-chain.ts`). */
  enqueueQuery(guard: Guard, job: { queue: QueueName; key: string; ref: string; at: number }, now: number) {
    return this.store.enqueueQuery(guard, job, now);
  }

  /** `finish` as a step of a chain of writes (`db/write-chain.ts`). */
  finishQuery(guard: Guard, queue: QueueName, key: string, result: string, now: number) {
    return this.store.finishQuery(guard, queue, key, result, now);
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
