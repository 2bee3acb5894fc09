/**
 * Refund reconciliation (docs/payments.md), the handler of queue `refund.follow`: carries every refund
 * to a definite end without anyone asking again. A refund left `requesting` (a crash, a call lost on
 * the way) is looked up at the channel and sent again under the same refund number when the channel
 * never got it; an accepted refund whose notification does not come is completed from the refund
 * query. Completion goes through the settlement: one `refunded` transition, one callback.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { isKitError } from '@kit/shared';
import type { PayChannelOrdersTable, PayRefundsTable } from '../db/schema';
import type { Retry } from '../jobs/retry';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { FollowUpRules } from '../jobs/follow-up';
import type { Providers } from './providers/in-use';
import { refusalText, type RefundFacts } from './providers/provider';
import type { PaymentStore } from './payment-store';
import type { ReconciliationOutcome } from '../metrics/metrics';
import type { RefundOptions, RefundService } from './refund-service';
import type { Settlement } from './settlement';

/** The rules of queue `refund.follow`; its frame (lease, metric, retries) is `jobs/follow-up.ts`. */
export class RefundFollower implements FollowUpRules {
  readonly queue = 'refund.follow' as const;
  /** At most two channel calls a run (query, then the refund again). */
  readonly channelCalls = 2;
  readonly metricKind = 'refund_resume' as const;

  constructor(
    private readonly store: PaymentStore,
    private readonly providers: Providers,
    private readonly refunds: RefundService,
    private readonly settlement: Settlement,
    private readonly opts: RefundOptions,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  outcome(settled: JobSettlement): ReconciliationOutcome {
    if (settled.state === 'done') return settled.result === 'refunded' || settled.result === 'success' ? 'refunded' : 'failed';
    return settled.error ? 'failed' : 'pending';
  }

  async follow(job: JobRow, retry: Retry): Promise<JobSettlement> {
    const refund = await this.store.refund(job.key!);
    if (!refund || refund.state === 'success' || refund.state === 'failed') return { state: 'done', result: refund?.state ?? 'gone' };
    const co = await this.store.channelOrder(refund.out_trade_no);
    if (!co) return { state: 'failed', result: 'no channel order', error: `refund ${refund.out_refund_no} names an unknown channel order` };
    // Refunds can take days at a bank: after the schedule, the policy keeps asking at its last interval.
    const later = (error?: string) => retry.later(error);
    // A KitError (the channel could not be reached) is the frame's to retry.
    if (refund.state === 'requesting') {
      const settledAt = refund.updated_at + this.opts.channelTimeoutMs + 1_000;
      // A request may still be waiting for the channel's answer.
      if (this.clock.now() < settledAt) return { state: 'pending', nextAt: settledAt };
      if (!(await this.store.takeOverRefund(this.store.db, refund.prepay_id, 'requesting', refund.updated_at)))
        return { state: 'pending', nextAt: this.clock.now() + 1_000 };
    }
    const q = await this.providers.get(co.channel).queryRefund(refund, co);
    if (!q.ok && q.refusal.meaning === 'not_found') return await this.resend(refund, co, later);
    if (!q.ok) return later(refusalText(q.refusal, ': '));
    return await this.apply(refund, q, later);
  }

  /** The channel never got it: the same refund again (same refund number). */
  private async resend(refund: PayRefundsTable, co: PayChannelOrdersTable, later: (e?: string) => JobSettlement): Promise<JobSettlement> {
    this.log.info({ prepayId: refund.prepay_id, outRefundNo: refund.out_refund_no }, 'the channel never received this refund; sending it again');
    try {
      await this.refunds.send(refund, co);
    } catch (err) {
      if (!(isKitError(err) && err.error === 'channel_error')) throw err;
      // Refused: `send` ended it failed. An answer that decided nothing (one the platform did not
      // sign) left it requesting: asked again later, under the same number.
      if ((await this.store.refund(refund.prepay_id))?.state === 'failed') return { state: 'done', result: 'refused' };
      return later(err.message);
    }
    return later();
  }

  private async apply(refund: PayRefundsTable, f: RefundFacts, later: (e?: string) => JobSettlement): Promise<JobSettlement> {
    if (!f.listed) return later('the refund query does not list this refund');
    if (f.amountCents !== refund.refund_cents) return later(`the refund query reports ${f.amountCents} instead of ${refund.refund_cents}`);
    if (f.state === 'succeeded') {
      await this.settlement.completeRefund(refund, f.refundId);
      this.log.info({ prepayId: refund.prepay_id }, 'refund completed by refund query');
      return { state: 'done', result: 'refunded' };
    }
    if (f.state === 'failed') {
      await this.settlement.failRefund(refund, `channel: ${f.stateText}`);
      return { state: 'done', result: 'failed' };
    }
    // Still processing: the channel has it.
    if (refund.state === 'requesting') await this.store.moveRefund(this.store.db, refund.prepay_id, ['requesting'], 'accepted', { refund_id: f.refundId });
    return later();
  }
}
