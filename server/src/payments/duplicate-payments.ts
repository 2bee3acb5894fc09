/**
 * An order is paid once (design 6.3, docs/payments.md "Paid once"). When a payment is recorded, the
 * order's other channel orders still payable (another wallet, another flow) are closed at their
 * platform by their follow-up job (`payment.reconcile`, which closes what an ended order left
 * payable). When another of them was paid anyway (a race: both payers paid before either close),
 * that later payment is recorded here, whoever learned of it (a notification, an order query, a
 * close that found it paid, the daily bill: they all go through `Settlement.recordPayment`), and
 * refunded automatically through its own provider under a refund number kept across retries, by
 * the job of queue `payment.duplicate` (`duplicate-refund-follower.ts`). The order stays paid once:
 * no second `finish`, and its own refund (4.6) stays the first payment's.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import type { PaidVia, PayChannelOrdersTable, PayDuplicatePaymentsTable, PayRefundsTable } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { Metrics } from '../metrics/metrics';
import type { DuplicateStore } from './duplicate-store';
import type { PaidFacts } from './providers/provider';

/** The queue that refunds second payments. */
export const DUPLICATE_QUEUE = 'payment.duplicate' as const;

/**
 * Who "requested" a duplicate's refund, in the refund shape the provider contract takes
 * (`PayRefundsTable`): the kit itself. It is also how a refund notification is told apart from the
 * order's own refund.
 */
const KIT_ITSELF = 'kit:duplicate-payment';

export class DuplicatePayments {
  constructor(
    readonly store: DuplicateStore,
    private readonly jobs: Jobs,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly metrics?: Pick<Metrics, 'duplicatePayment'>,
  ) {}

  /**
   * The settlement recorded a payment of `co` as a second payment of its order, with its refund to
   * make and the job that makes it (in the payment's own statement or transaction: `Settlement`):
   * counted, told, and the job started now.
   */
  recorded(co: PayChannelOrdersTable, facts: PaidFacts, via: PaidVia): void {
    this.metrics?.duplicatePayment(co.channel);
    this.log.warn(
      { prepayId: co.prepay_id, outTradeNo: co.out_trade_no, channel: co.channel, transactionId: facts.transactionId, via },
      'second payment of an order that was already paid; refunding it automatically',
    );
    this.jobs.wake(DUPLICATE_QUEUE);
  }

  /**
   * The first payment came through `paid`, which was no longer the order's payable channel order
   * (the payer switched flows or wallets after it was placed): the one that is payable now is
   * closed at its platform by its follow-up job, due now. A payable channel order is never the
   * paid one's sibling otherwise (one per order), so the usual payment never gets here.
   */
  async closeOthers(paid: PayChannelOrdersTable): Promise<void> {
    const others = await this.store.otherPayable(paid.prepay_id, paid.out_trade_no);
    const now = this.clock.now();
    for (const o of others) await this.jobs.enqueue(this.store.db, { queue: 'payment.reconcile', key: o.out_trade_no, ref: o.prepay_id, at: now }, 'rearm');
    if (others.length) this.jobs.wake('payment.reconcile');
  }

  /** A duplicate's refund by its number (a refund notification names it), in the shape providers read refunds in. */
  async refundByNumber(outRefundNo: string): Promise<PayRefundsTable | undefined> {
    const d = await this.store.byRefundNumber(outRefundNo);
    return d && asRefund(d);
  }

  /** Whether a refund (as a notification reader handed it back) is a duplicate's, not the order's own. */
  isDuplicateRefund(r: PayRefundsTable): boolean {
    return r.requested_by === KIT_ITSELF;
  }

  /** The duplicate's refund completed at its channel. True when this call made the change. */
  async complete(r: PayRefundsTable, refundId: string | null): Promise<boolean> {
    const done = await this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.move(trx, r.out_trade_no, ['requesting', 'accepted', 'failed'], 'success', {
        refund_id: refundId ?? r.refund_id,
        completed_at: this.clock.now(),
        last_error: null,
      });
      if (mine) await this.jobs.finish(trx, DUPLICATE_QUEUE, r.out_trade_no, 'refunded');
      return mine;
    });
    if (done) this.log.info({ prepayId: r.prepay_id, outTradeNo: r.out_trade_no, outRefundNo: r.out_refund_no }, 'second payment refunded automatically');
    return done;
  }

  /** The channel refused or closed the duplicate's refund: a definite end that people must look at. */
  async fail(r: PayRefundsTable, reason: string): Promise<boolean> {
    const failed = await this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.move(trx, r.out_trade_no, ['requesting', 'accepted'], 'failed', { last_error: reason });
      if (mine) await this.jobs.finish(trx, DUPLICATE_QUEUE, r.out_trade_no, 'failed');
      return mine;
    });
    if (failed)
      this.log.error(
        { prepayId: r.prepay_id, outTradeNo: r.out_trade_no, outRefundNo: r.out_refund_no, reason },
        'the automatic refund of a second payment failed; refund it at the channel by hand',
      );
    return failed;
  }
}

/** A duplicate as the refund the provider contract sends and queries (its own number, the duplicate's channel order). */
export function asRefund(d: PayDuplicatePaymentsTable): PayRefundsTable {
  return {
    prepay_id: d.prepay_id,
    out_refund_no: d.out_refund_no,
    out_trade_no: d.out_trade_no,
    channel: d.channel,
    state: d.state,
    refund_cents: d.refund_cents,
    refund_id: d.refund_id,
    requested_by: KIT_ITSELF,
    app_id: '',
    last_error: d.last_error,
    created_at: d.created_at,
    updated_at: d.updated_at,
    completed_at: d.completed_at,
  };
}
