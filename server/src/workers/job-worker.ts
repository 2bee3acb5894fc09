/**
 * Runs one queue's jobs in this process: claims due jobs behind a lease, runs them without waiting
 * for each other (a slow receiver must not hold up the rest), up to the handler's concurrency, and
 * records how each run ended. Polls at an interval and runs at once when the queue is woken.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Jobs } from '../jobs/jobs';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { QueueName } from '../jobs/job-tables';
import { startLoop, type Loop } from './loop';

/** Runs per claim at most: a big backlog is taken in slices so that other work interleaves. */
const CLAIM_BATCH = 32;
/** When a handler throws (a bug or the database failing), its job comes back after this. */
const FAILED_RUN_RETRY_MS = 5_000;

export interface JobHandler {
  queue: QueueName;
  /** Runs in flight at most in this process. */
  concurrency: number;
  /** How long a claim lasts: longer than one run can take, so a live worker never loses it mid-run. */
  leaseMs: number;
  /**
   * One run of a job (`job.attempts` runs happened before). Resolves with how it ended; when
   * `signal` aborts (shutdown) it may resolve with anything: the run is then not recorded and the
   * job comes back when its lease ends.
   */
  run(job: JobRow, signal: AbortSignal): Promise<JobSettlement>;
}

export function startJobWorker(jobs: Jobs, handler: JobHandler, pollMs: number, log: Logger): Loop {
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  // Every run in flight listens to it (up to the handler's concurrency): not a leak.
  setMaxListeners(0, stopping.signal);
  // Set once below; the job runs above read it, and the loop may tick before `startLoop` returns.
  // eslint-disable-next-line prefer-const
  let loop: Loop | undefined;

  const runOne = async (job: JobRow, token: string) => {
    let outcome: JobSettlement;
    try {
      outcome = await handler.run(job, stopping.signal);
    } catch (err) {
      if (stopping.signal.aborted) return;
      log.error({ err, queue: handler.queue, job: job.id }, 'job run failed');
      outcome = { state: 'pending', nextAt: Date.now() + FAILED_RUN_RETRY_MS, error: (err as Error).message ?? String(err) };
    }
    if (stopping.signal.aborted) return;
    await jobs.store.settle(job.id, token, job.attempts + 1, outcome);
  };

  const tick = async (): Promise<boolean> => {
    const room = Math.min(CLAIM_BATCH, handler.concurrency - running.size);
    if (room <= 0) return false;
    const now = Date.now();
    const token = randomBytes(8).toString('hex');
    const claimed = await jobs.store.claim(handler.queue, now, room, now + handler.leaseMs, token);
    for (const job of claimed) {
      const p: Promise<void> = runOne(job, token)
        .catch((err) => log.error({ err, queue: handler.queue, job: job.id }, 'recording a job run failed'))
        .finally(() => {
          running.delete(p);
          loop?.poke();
        });
      running.add(p);
    }
    return claimed.length === room;
  };

  loop = startLoop(handler.queue, pollMs, tick, log);
  const unregister = jobs.onWake(handler.queue, () => loop!.poke());
  return {
    poke: () => loop!.poke(),
    async stop() {
      unregister();
      stopping.abort();
      await loop!.stop();
      await Promise.all([...running]);
    },
  };
}
