/**
 * The daily run (docs/reconciliation.md): after `RECONCILE_AT` China time, each instance adds the
 * job of the previous day for each configured channel with a bill (every provider's); the job's key (`<date>/<channel>`) makes it
 * one job across instances, and its lease one run at a time. While the bill is not ready (or cannot
 * be had or read) the job comes back on `RECONCILE_RETRY_SCHEDULE`, its last wait repeating.
 */
import type { Logger } from 'pino';
import { isKitError } from '@kit/shared';
import type { ChannelName } from '../payments/providers/provider';
import type { Jobs } from '../jobs/jobs';
import type { Retry } from '../jobs/retry';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { JobHandler } from '../jobs/job-worker';
import { addDays, chinaDate } from './china-day';
import { BillNotReady, type ReconciliationService } from './recon-service';

export interface DailyOptions {
  /** `HH:MM` China time, or `off`. */
  at: string;
  retrySchedule: readonly number[];
  /**
   * Whether a channel is configured (`payments/providers/setup.ts`): an unconfigured one has no bill
   * to fetch, and its days are not added (the start's warning says what it lacks).
   */
  configured?: (channel: ChannelName) => boolean;
}

const CST_OFFSET_MS = 8 * 3_600_000;

export class DailyReconciliation implements JobHandler {
  readonly queue = 'reconcile.daily' as const;
  readonly concurrency = 1;
  // A bill of a busy day takes a while to download and match.
  readonly leaseMs = 15 * 60_000;

  constructor(
    private readonly service: ReconciliationService,
    private readonly jobs: Jobs,
    private readonly opts: DailyOptions,
    private readonly log: Logger,
  ) {}

  /**
   * Adds the due days' jobs (no-ops when they exist): the previous day once `RECONCILE_AT` has
   * passed, and the day before it in case this service was down at its time yesterday.
   */
  async enqueueDue(now = this.jobs.store.clock.now()): Promise<number> {
    if (this.opts.at === 'off') return 0;
    const today = chinaDate(now);
    const clock = new Date(now + CST_OFFSET_MS).toISOString().slice(11, 16);
    const days = [addDays(today, -2), ...(clock >= this.opts.at ? [addDays(today, -1)] : [])];
    let added = 0;
    for (const date of days) {
      for (const channel of this.channels()) {
        if (await this.jobs.enqueue(this.jobs.store.db, { queue: this.queue, key: `${date}/${channel}`, ref: date, payload: { date, channel } })) added++;
      }
    }
    if (added) this.jobs.wake(this.queue);
    return added;
  }

  /** The channels whose bills the daily run reconciles: every configured one that publishes a bill. */
  channels(): ChannelName[] {
    return this.service.channelsWithBills().filter((c) => !this.opts.configured || this.opts.configured(c));
  }

  /**
   * A day a run outside the job could not reconcile (`npm run kit -- reconcile`): the daily job takes
   * it up after the first wait of `RECONCILE_RETRY_SCHEDULE` and keeps trying like any due day, so a
   * failed day does not stay failed. The time it is due; null when its job is pending already.
   */
  async retryLater(date: string, channel: ChannelName, now = this.jobs.store.clock.now()): Promise<number | null> {
    const at = now + (this.opts.retrySchedule[0] ?? 300_000);
    const key = `${date}/${channel}`;
    if (await this.jobs.enqueue(this.jobs.store.db, { queue: this.queue, key, ref: date, payload: { date, channel }, at })) return at;
    return (await this.jobs.store.rearmEndedKey(this.queue, key, at, now)) ? at : null;
  }

  async run(job: JobRow, _signal: AbortSignal, retry: Retry): Promise<JobSettlement> {
    const { date, channel } = JSON.parse(job.payload) as { date: string; channel: ChannelName };
    try {
      const report = await this.service.reconcile(date, channel);
      const open = report.differences.filter((d) => d.resolution === 'open').length;
      this.log.info({ date, channel, differences: report.differences.length, open }, 'day reconciled');
      return { state: 'done', result: open ? `done, ${open} open` : 'done' };
    } catch (e) {
      if (!isKitError(e)) throw e;
      if (!(e instanceof BillNotReady)) this.log.error({ date, channel, err: e.message }, 'daily reconciliation failed; retrying');
      return retry.unreachable(e.message);
    }
  }
}
