/**
 * The handler of queue `profit-sharing.follow`: carries every split and finish through the channel
 * and follows each split until every receiver's result is final, on any instance and after any
 * crash, so that what the merchant reads always converges. A request left `requesting` (a crash,
 * a lost call) is sent again under the same `out_order_no`, which the channel treats as the same.
 */
import type { Retry } from '../jobs/retry';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { PaymentStore } from '../payments/payment-store';
import type { FollowUpRules } from '../jobs/follow-up';
import type { PsChannel } from './ps-channel';
import type { PsStore } from './ps-store';
import type { ReconciliationOutcome } from '../metrics/metrics';

export interface FollowerOptions {
  channelTimeoutMs: number;
}

/** The rules of queue `profit-sharing.follow`; its frame (lease, metric, retries) is `jobs/follow-up.ts`. */
export class ProfitSharingFollower implements FollowUpRules {
  readonly queue = 'profit-sharing.follow' as const;
  /** At most three channel calls a run (add a receiver, the amount, the request). */
  readonly channelCalls = 3;
  readonly metricKind = 'profit_sharing_follow' as const;

  constructor(
    private readonly store: PsStore,
    private readonly payments: PaymentStore,
    private readonly channel: PsChannel,
    private readonly opts: FollowerOptions,
  ) {}

  outcome(settled: JobSettlement): ReconciliationOutcome {
    if (settled.state === 'done') return settled.result === 'finished' ? 'finished' : 'failed';
    return settled.error ? 'failed' : 'pending';
  }

  async follow(job: JobRow, retry: Retry): Promise<JobSettlement> {
    const r = await this.store.request(job.key!);
    if (!r || r.state === 'finished' || r.state === 'failed') return { state: 'done', result: r?.state ?? 'gone' };
    const co = await this.payments.paidChannelOrder(r.prepay_id);
    if (!co) return { state: 'failed', result: 'no payment', error: `order ${r.prepay_id} has no recorded payment` };
    // Results can take long at the channel: after the schedule, the policy keeps asking at its last interval.
    const later = (error?: string) => retry.later(error);
    // A KitError (the channel could not be reached) is the frame's to retry.
    if (r.state === 'requesting') {
      // Requests of an order reach the channel in the order they were accepted: wait for the turn
      // of this one (the one before it makes it due when it gets there).
      const before = await this.store.earlierRequesting(r);
      if (before) return { state: 'pending', nextAt: Math.max(this.store.clock.now() + 1_000, before.updated_at + this.opts.channelTimeoutMs + 2_000) };
      const settledAt = r.updated_at + this.opts.channelTimeoutMs + 1_000;
      // A request may still be waiting for the channel's answer.
      if (this.store.clock.now() < settledAt) return { state: 'pending', nextAt: settledAt };
      if (!(await this.store.takeOverRequest(r.id, r.updated_at))) return { state: 'pending', nextAt: this.store.clock.now() + 1_000 };
      const refund = await this.payments.refund(r.prepay_id);
      if (refund && refund.state !== 'failed') {
        // A refund overtook it (a crash or a lost call kept it from the channel): the channel
        // refuses to share a refunded order, so sending it again would never end.
        const ended = await this.channel.settleUnsent(r, co, `a refund of the order was requested before this ${r.kind} reached the channel`);
        if (ended === 'failed') return { state: 'done', result: 'refused' };
        return ended === 'finished' ? { state: 'done', result: 'finished' } : later();
      }
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
      return { state: 'pending', nextAt: this.store.clock.now() };
    }
    return later();
  }
}
