/** Forgets replay-guard entries once their signatures are outside the time window anyway. */
import type { Logger } from 'pino';
import type { AppService } from '../apps/app-service';
import { startLoop, type Loop } from './loop';

export function startHousekeeping(apps: AppService, log: Logger): Loop {
  return startLoop(
    'housekeeping',
    60_000,
    async () => {
      await apps.purgeSignatures();
    },
    log,
  );
}
