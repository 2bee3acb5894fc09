/** Adds the daily reconciliation's due jobs (`reconciliation/daily-reconciliation.ts`) at start and every minute. */
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';
import type { DailyReconciliation } from '../reconciliation/daily-reconciliation';
import { startLoop, type Loop } from './loop';

export function startReconcileScheduler(daily: DailyReconciliation, log: Logger, clock: Clock): Loop {
  return startLoop(
    'reconcile.schedule',
    60_000,
    async () => {
      return (await daily.enqueueDue()) > 0 ? 'worked' : undefined;
    },
    log,
    clock,
  );
}
