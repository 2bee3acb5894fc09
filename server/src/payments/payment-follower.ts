/**
 * The payment follower (docs/payments.md), the handler of queue `payment.reconcile` (a name kept
 * because it is stored in every job row; "reconciliation" alone is the daily bill's): one job per
 * channel order asks the channel (order query) on `PAYMENT_QUERY_SCHEDULE` after it was placed, so
 * that a payment whose notification was lost still finishes the order, with its callback. When the
 * prepay order has ended while its channel order may still be payable, the job closes it instead,
 * retrying until the channel answers. A channel order closed while its platform may still take a
 * payment of it (the close changed nothing there: `ChannelOrders.closed`) is asked about until it
 * can no longer be paid, and once more then, so that a payment nobody notified is found (a second
 * payment is then refunded: docs/payments.md "Paid once").
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import type { PrepayService } from '../orders/prepay-service';
import type { ReconciliationOutcome } from '../metrics/metrics';
import type { Retry } from '../jobs/retry';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { PayChannelOrdersTable } from '../db/schema';
import type { FollowUpRules } from '../jobs/follow-up';
import type { Providers } from './providers/in-use';
import { refusalText } from './providers/provider';
import { closedWatchOf, codeWatchOf, isCodePayment, type ChannelOrders } from './channel-orders';
import type { CodePaymentFollow } from './code-payment-follow';
import type { PaymentStore } from './payment-store';

export interface ReconcilerOptions {
  /** Time limit of one channel call: a `creating` row younger than this may still be answered. */
  channelTimeoutMs: number;
}

/** The rules of queue `payment.reconcile`; its frame (lease, metric, retries) is `jobs/follow-up.ts`. */
export class PaymentFollower implements FollowUpRules {
  readonly queue = 'payment.reconcile' as const;
  /** At most two channel calls a run (close, then query). */
  readonly channelCalls = 2;
  readonly metricKind = 'payment_query' as const;

  constructor(
    private readonly store: PaymentStore,
    private readonly prepay: PrepayService,
    private readonly providers: Providers,
    private readonly channelOrders: ChannelOrders,
    private readonly opts: ReconcilerOptions,
    private readonly log: Logger,
    private readonly clock: Clock,
    /** The rules of a payment code's channel order (7.4): paid, or cancelled. */
    private readonly codes?: CodePaymentFollow,
  ) {}

  outcome(settled: JobSettlement): ReconciliationOutcome {
    if (settled.state === 'done') return settled.result === 'paid' ? 'paid' : settled.result === 'closed' ? 'closed' : 'unpaid';
    return settled.error ? 'failed' : 'unpaid';
  }

  async follow(job: JobRow, retry: Retry): Promise<JobSettlement> {
    const co = await this.store.channelOrder(job.key!);
    if (co && isCodePayment(co) && this.codes) return this.codes.follow(co, codeWatchOf(job.payload), retry);
    const watch = co?.state === 'closed' ? closedWatchOf(job.payload) : undefined;
    if (co && watch) return this.watchClosed(co, watch.payableUntil, retry);
    if (!co || co.state === 'paid' || co.state === 'closed' || co.state === 'failed' || co.state === 'cancelled')
      return { state: 'done', result: co?.state ?? 'gone' };
    // While the order is active, queries stop with the schedule (expiry settles the rest); a
    // channel that cannot be reached (a KitError) is asked again and again (the frame, the queue's policy).
    const order = await this.prepay.find(co.prepay_id);
    if (!order || order.status !== 'active') {
      // The order ended (expired, cancelled) while this channel order may still be payable.
      return { state: 'done', result: await this.channelOrders.close(co) };
    }
    if (co.state === 'creating' && this.clock.now() - co.updated_at < this.opts.channelTimeoutMs) {
      // A request may still be waiting for the channel's answer to this very order.
      return { state: 'pending', nextAt: co.updated_at + this.opts.channelTimeoutMs + 1_000 };
    }
    const q = await this.providers.get(co.channel).queryOrder(co);
    if (!q.ok) {
      if (q.refusal.meaning === 'not_found' && co.state === 'creating') {
        // Never reached the channel (the request placing it died first): nothing can be paid.
        await this.store.moveChannelOrder(this.store.db, co.out_trade_no, ['creating'], 'failed');
        return { state: 'done', result: 'never placed' };
      }
      return retry.later(refusalText(q.refusal, ': '));
    }
    switch (q.state) {
      case 'paid':
      case 'refunded':
        await this.channelOrders.recordQueriedPayment(co, q);
        this.log.info({ prepayId: co.prepay_id, outTradeNo: co.out_trade_no }, 'payment found by order query');
        return { state: 'done', result: 'paid' };
      case 'closed':
      case 'revoked':
      case 'failed':
        await this.store.moveChannelOrder(this.store.db, co.out_trade_no, ['creating', 'open'], 'closed');
        return { state: 'done', result: 'closed' };
      default: // unpaid, or the payer is paying
        return retry.later();
    }
  }

  /**
   * A closed channel order its platform may still take a payment of until `payableUntil`: asked on
   * the schedule while it may, then once more at that moment; a payment found is recorded as a
   * notification's would be (the settlement makes a second payment of a paid order a refund).
   */
  private async watchClosed(co: PayChannelOrdersTable, payableUntil: number, retry: Retry): Promise<JobSettlement> {
    const now = this.clock.now();
    const q = await this.providers.get(co.channel).queryOrder(co);
    if (q.ok && (q.state === 'paid' || q.state === 'refunded')) {
      await this.channelOrders.recordQueriedPayment(co, q);
      this.log.info({ prepayId: co.prepay_id, outTradeNo: co.out_trade_no }, 'payment of a closed channel order found by order query');
      return { state: 'done', result: 'paid' };
    }
    // It can no longer be paid: this was the last question.
    if (now >= payableUntil) return { state: 'done', result: 'closed' };
    const wait = retry.nextWait();
    const nextAt = wait === undefined ? payableUntil : Math.min(now + wait, payableUntil);
    return { state: 'pending', nextAt, error: q.ok ? null : refusalText(q.refusal, ': ') };
  }
}
