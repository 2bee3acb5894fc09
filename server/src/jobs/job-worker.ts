/**
 * Runs one queue's jobs in this process: claims due jobs behind a lease, runs them without waiting
 * for each other (a slow receiver must not hold up the rest), up to the handler's concurrency, and
 * records how each run ended. Polls at an interval and runs at once when the queue is woken.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';
import type { Jobs } from './jobs';
import type { JobRow, JobSettlement } from './job-store';
import type { QueueName } from './job-tables';
import { startLoop, type Loop, type TickResult } from './loop';
import { CRASHED_RUN_RETRY_MS, Retry } from './retry';
import type { RetryPolicy } from './retry';

/** Runs per claim at most: a big backlog is taken in slices so that other work interleaves. */
const CLAIM_BATCH = 32;
export interface JobHandler {
  queue: QueueName;
  /** Runs in flight at most in this process. */
  concurrency: number;
  /** How long a claim lasts: longer than one run can take, so a live worker never loses it mid-run. */
  leaseMs: number;
  /**
   * One run of a job (`job.attempts` runs happened before). Resolves with how it ended, "again
   * later" through `retry` (the queue's policy, `jobs/registry.ts`); when `signal` aborts
   * (shutdown) it may resolve with anything: the run is then not recorded and the job comes back
   * when its lease ends.
   */
  run(job: JobRow, signal: AbortSignal, retry: Retry): Promise<JobSettlement>;
  /** When woken, wait this long (ms) before claiming, so that jobs committed meanwhile are claimed together (default: claim at once). */
  batchMs?: number;
}

/** A queue's registration (`jobs/registry.ts`): its handler, when its jobs run again, how often it looks for due ones, how long ended ones are kept. */
export interface JobKind {
  handler: JobHandler;
  retry: RetryPolicy;
  /** How often an idle worker looks for due jobs (a retry's time, another instance's job). */
  pollMs: number;
  /** How long a job that ended (done or given up) is kept before housekeeping deletes it; null keeps it (it is history someone reads). */
  retentionMs: number | null;
}

export function startJobWorker(jobs: Jobs, kind: JobKind, log: Logger, clock: Clock): Loop {
  const { handler, retry, pollMs } = kind;
  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  // Every run in flight listens to it (up to the handler's concurrency): not a leak.
  setMaxListeners(0, stopping.signal);
  // Set once below; the job runs above read it, and the loop may tick before `startLoop` returns.
  // eslint-disable-next-line prefer-const -- assigned once, after the runs above that read it were defined
  let loop: Loop | undefined;

  const runOne = async (job: JobRow, token: string) => {
    let outcome: JobSettlement;
    try {
      outcome = await handler.run(job, stopping.signal, new Retry(retry, job, clock));
    } catch (err) {
      if (stopping.signal.aborted) return;
      log.error({ err, queue: handler.queue, job: job.id }, 'job run failed');
      outcome = { state: 'pending', nextAt: clock.now() + CRASHED_RUN_RETRY_MS, error: (err as Error).message ?? String(err) };
    }
    if (stopping.signal.aborted) return;
    await jobs.store.settle(job.id, token, job.attempts + 1, outcome, clock.now());
  };

  // Whether due jobs may be left unclaimed: a claim came back full, the worker was at capacity, or
  // new jobs were committed since. Only then does a finished run claim again; otherwise every
  // finished run (and every commit's wake) cost a claim query that mostly found the jobs of one
  // group commit (0.4 claims per payment notification).
  let backlog = true;
  const tick = async (): Promise<TickResult> => {
    const room = Math.min(CLAIM_BATCH, handler.concurrency - running.size);
    if (room <= 0) {
      backlog = true;
      return;
    }
    const now = clock.now();
    const token = randomBytes(8).toString('hex');
    backlog = false;
    const claimed = await jobs.store.claim(handler.queue, now, room, now + handler.leaseMs, token);
    for (const job of claimed) {
      const p: Promise<void> = runOne(job, token)
        .catch((err) => log.error({ err, queue: handler.queue, job: job.id }, 'recording a job run failed'))
        .finally(() => {
          running.delete(p);
          if (backlog) loop?.poke();
        });
      running.add(p);
    }
    if (claimed.length === room) backlog = true;
    return claimed.length === room ? 'more' : claimed.length ? 'worked' : undefined;
  };

  // A wake (jobs committed) claims after `handler.batchMs`, so that the jobs of the commits in that
  // window are claimed together; without it, at once.
  // The window is the process's own coalescing of commits, not the business's time: the machine's timer.
  let batchTimer: NodeJS.Timeout | undefined;
  const woken = () => {
    backlog = true;
    loop!.poke();
  };
  const wake = () => {
    if (!handler.batchMs) return woken();
    // eslint-disable-next-line no-restricted-syntax -- the 5 ms window coalesces commits of this process, not the business's time
    batchTimer ??= setTimeout(() => {
      batchTimer = undefined;
      woken();
    }, handler.batchMs);
  };

  loop = startLoop(handler.queue, pollMs, tick, log, clock);
  const unregister = jobs.onWake(handler.queue, wake);
  return {
    poke: woken,
    // Until a claim finds nothing due and the runs it started have ended (a run's end may make more due).
    async settle() {
      let worked = false;
      for (;;) {
        const claimed = await loop!.settle();
        await Promise.all([...running]);
        if (!claimed && !running.size) return worked;
        worked = true;
      }
    },
    async stop() {
      unregister();
      clearTimeout(batchTimer);
      stopping.abort();
      await loop!.stop();
      await Promise.all([...running]);
    },
  };
}
