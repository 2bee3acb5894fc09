/**
 * Once a minute: forgets replay-guard entries once their signatures are outside the time window
 * anyway, login failures once their window is over, and ended jobs once their queue's retention
 * (`jobs/registry.ts`) has passed; and whatever else the composition root gives it (the mini-program
 * codes of orders that can no longer be paid).
 */
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';
import type { AppService } from '../apps/app-service';
import type { LoginThrottle } from '../security/login-throttle';
import type { JobStore } from './job-store';
import type { JobKind } from './job-worker';
import { startLoop, type Loop } from './loop';

/** Rows one statement deletes at most, so that a large backlog never holds the table in one long statement. */
export const PURGE_BATCH = 1_000;
/** Statements per queue and turn at most: a backlog larger than this is worked off over the next turns. */
const PURGE_ROUNDS = 20;

export function startHousekeeping(
  apps: AppService,
  logins: LoginThrottle,
  jobs: JobStore,
  kinds: readonly JobKind[],
  log: Logger,
  clock: Clock,
  more: ReadonlyArray<() => Promise<unknown>> = [],
): Loop {
  return startLoop(
    'housekeeping',
    60_000,
    async () => {
      await apps.purgeSignatures();
      await logins.purge();
      const purged = await purgeEndedJobs(jobs, kinds);
      if (purged) log.info({ purged }, 'ended jobs past their retention deleted');
      for (const purge of more) await purge();
    },
    log,
    clock,
  );
}

/** Deletes the ended jobs of every queue that has a retention, past it; how many, by queue (only queues with any). */
export async function purgeEndedJobs(jobs: JobStore, kinds: readonly JobKind[], now = jobs.clock.now()): Promise<Record<string, number> | undefined> {
  let out: Record<string, number> | undefined;
  for (const { handler, retentionMs } of kinds) {
    if (retentionMs === null) continue;
    let total = 0;
    for (let round = 0; round < PURGE_ROUNDS; round++) {
      const n = await jobs.purgeEnded(handler.queue, now - retentionMs, PURGE_BATCH);
      total += n;
      if (n < PURGE_BATCH) break;
    }
    if (total) (out ??= {})[handler.queue] = total;
  }
  return out;
}
