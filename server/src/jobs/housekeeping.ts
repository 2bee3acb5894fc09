/** Forgets replay-guard entries once their signatures are outside the time window anyway, and login failures once their window is over. */
import type { Logger } from 'pino';
import type { AppService } from '../apps/app-service';
import type { LoginThrottle } from '../security/login-throttle';
import { startLoop, type Loop } from './loop';

export function startHousekeeping(apps: AppService, logins: LoginThrottle, log: Logger): Loop {
  return startLoop(
    'housekeeping',
    60_000,
    async () => {
      await apps.purgeSignatures();
      await logins.purge();
    },
    log,
  );
}
