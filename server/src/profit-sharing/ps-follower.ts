/**
 * The handler of queue `profit-sharing.follow`: carries every split and finish through the channel
 * and follows each split until every receiver's result is final, on any instance and after any
 * crash, so that what the merchant reads always converges. A request left `requesting` (a crash,
 * a lost call) is sent again under the same `out_order_no`, which the channel treats as the same.
 */
import { isKitError } from '@kit/shared';
import { onSchedule } from '../jobs/jobs';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { PaymentStore } from '../payments/payment-store';
import type { JobHandler } from '../workers/job-worker';
import type { PsChannel } from './ps-channel';
import type { PsStore } from './ps-store';
import type { Metrics } from '../metrics/metrics';

export interface FollowerOptions {
  querySchedule: readonly number[];
  channelTimeoutMs: number;
}

export class ProfitSharingFollower implements JobHandler {
  readonly queue = 'profit-sharing.follow' as const;
  readonly concurrency = 16;
  readonly leaseMs: number;

  constructor(
    private readonly store: PsStore,
    private readonly payments: PaymentStore,
    private readonly channel: PsChannel,
    private readonly opts: FollowerOptions,
    private readonly metrics?: Pick<Metrics, 'reconciliation'>,
  ) {
    // A run makes at most three channel calls (add a receiver, the amount, the request).
    this.leaseMs = 3 * opts.channelTimeoutMs + 5_000;
  }

  async run(job: JobRow): Promise<JobSettlement> {
    const settled = await this.follow(job);
    const outcome = settled.state === 'done' ? (settled.result === 'finished' ? 'finished' : 'failed') : settled.error ? 'failed' : 'pending';
    this.metrics?.reconciliation('profit_sharing_follow', outcome);
    return settled;
  }

  private async follow(job: JobRow): Promise<JobSettlement> {
    const r = await this.store.request(job.key!);
    if (!r || r.state === 'finished' || r.state === 'failed') return { state: 'done', result: r?.state ?? 'gone' };
    const co = await this.payments.paidChannelOrder(r.prepay_id);
    if (!co) return { state: 'failed', result: 'no payment', error: `order ${r.prepay_id} has no recorded payment` };
    // Results can take long at the channel: after the schedule, keep asking at its last interval.
    const later = (error?: string) => onSchedule(this.opts.querySchedule, job, { repeatLast: true, error });
    try {
      if (r.state === 'requesting') {
        const settledAt = r.updated_at + this.opts.channelTimeoutMs + 1_000;
        // A request may still be waiting for the channel's answer.
        if (Date.now() < settledAt) return { state: 'pending', nextAt: settledAt };
        if (!(await this.store.takeOverRequest(r.id, r.updated_at))) return { state: 'pending', nextAt: Date.now() + 1_000 };
        const state = await this.channel.send(r, co);
        if (state === 'failed') return { state: 'done', result: 'refused' };
        return state === 'finished' ? { state: 'done', result: 'finished' } : later();
      }
      const state = await this.channel.refresh(r, co);
      if (state === 'finished') return { state: 'done', result: 'finished' };
      if (state === 'missing') {
        // Accepted, yet unknown to the channel: make it `requesting` again, dated so that the next
        // run sends it at once under the same number.
        await this.store.moveRequest(this.store.db, r.id, ['processing'], 'requesting', {}, 0);
        return { state: 'pending', nextAt: Date.now() };
      }
      return later();
    } catch (err) {
      if (!isKitError(err)) throw err;
      return later(err.message);
    }
  }
}
