/**
 * "Reconcile now" (the console's action, docs/console.md): one China date reconciled at once with
 * every channel that publishes a bill, by the very run the daily job makes (`daily-reconciliation.ts`
 * calls the same `ReconciliationService.reconcile`), so with its rules and its idempotence: running a
 * day again changes nothing, a run beside the daily job's waits for it on the day's report row, and
 * a bill the channel has not made yet is "not ready", not a failure. Two requests for the same day
 * in this process share one run.
 */
import type { Logger } from 'pino';
import { isKitError, KitError } from '@kit/shared';
import type { ChannelName } from '../payments/providers/provider';
import { chinaDate, isChinaDate } from './china-day';
import { BillNotReady, type ReconciliationService } from './recon-service';

/** What a run did with one channel's bill: reconciled, not made yet (the daily job tries again), or unreadable. */
export interface ChannelRun {
  channel: ChannelName;
  outcome: 'done' | 'not_ready' | 'failed';
  /** Why it is not done, in the service's words. */
  error?: string;
}

export class ReconcileNow {
  private readonly inFlight = new Map<string, Promise<ChannelRun[]>>();

  constructor(
    private readonly service: ReconciliationService,
    private readonly log: Logger,
  ) {}

  /** Runs `date` (a China date, today at the latest) for each channel with a bill, one after the other. */
  run(date: string, by: string, now = this.service.clock.now()): Promise<ChannelRun[]> {
    if (!isChinaDate(date)) throw new KitError('invalid_request', `date must be a China date written YYYY-MM-DD, got "${date}"`);
    if (date > chinaDate(now)) throw new KitError('invalid_request', `${date} has not begun yet in China time: there is no bill to reconcile`);
    const channels = this.service.channelsWithBills();
    if (!channels.length) throw new KitError('channel_unavailable', 'no payment channel configured here publishes a trade bill');
    const running = this.inFlight.get(date);
    if (running) return running;
    const run = this.runChannels(date, channels, by).finally(() => this.inFlight.delete(date));
    this.inFlight.set(date, run);
    return run;
  }

  private async runChannels(date: string, channels: readonly ChannelName[], by: string): Promise<ChannelRun[]> {
    const out: ChannelRun[] = [];
    for (const channel of channels) {
      try {
        const report = await this.service.reconcile(date, channel);
        this.log.info({ date, channel, by, differences: report.differences.length }, 'day reconciled on request');
        out.push({ channel, outcome: 'done' });
      } catch (e) {
        if (!isKitError(e)) throw e;
        out.push({ channel, outcome: e instanceof BillNotReady ? 'not_ready' : 'failed', error: e.message });
      }
    }
    return out;
  }
}
