/** Adds the daily reconciliation's due jobs (`reconciliation/daily-reconciliation.ts`) at start and every minute. */
import type { Logger } from 'pino';
import type { DailyReconciliation } from '../reconciliation/daily-reconciliation';
import { startLoop, type Loop } from './loop';

export function startReconcileScheduler(daily: DailyReconciliation, log: Logger): Loop {
  return startLoop(
    'reconcile.schedule',
    60_000,
    async () => {
      await daily.enqueueDue();
    },
    log,
  );
}
