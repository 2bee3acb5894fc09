/**
 * The two money transitions, whoever learns of them first (a channel notification, an order or
 * refund query, a close that finds the order paid, the daily statement), on any instance: a payment moves the order to
 * `finish`, a completed refund to `refunded`. Each writes its state changes, the section 6 callback
 * and the end of its follow-up job in one transaction; the loser of a race changes nothing, so
 * one payment gives one transition and one callback.
 */
import type { Logger } from 'pino';
import type { CallbackStatus, PaymentChannel } from '@kit/shared';
import type { Executor, PaidVia, PayChannelOrdersTable, PayRefundsTable } from '../db/schema';
import type { OrderTransitions } from '../orders/order-transitions';
import type { CallbackService } from '../callbacks/callback-service';
import type { Jobs } from '../jobs/jobs';
import type { PaymentStore } from './payment-store';

import type { PaidFacts } from './providers/provider';

export class Settlement {
  constructor(
    private readonly store: PaymentStore,
    private readonly orders: OrderTransitions,
    private readonly callbacks: CallbackService,
    private readonly jobs: Jobs,
    private readonly log: Logger,
  ) {}

  /**
   * A verified payment of a channel order. A payment that races the order's expiry still counts
   * (`cancel` → `finish`): the money was taken. `via` is how we learned of it, kept for the
   * console's timeline; only the first to record the payment counts. True when this call made the change.
   */
  async recordPayment(co: PayChannelOrdersTable, facts: PaidFacts, via: PaidVia): Promise<boolean> {
    // The channel's clock is not ours: a payment is never recorded before the order it pays (4.2).
    const paid = { ...facts, paidAt: Math.max(facts.paidAt, co.created_at) };
    const finished = await this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.markPaid(trx, co.out_trade_no, paid.transactionId, paid.paidAt, via);
      if (!mine) return false;
      await this.jobs.finish(trx, 'payment.reconcile', co.out_trade_no, 'paid');
      const moved =
        (await this.orders.transition(trx, co.prepay_id, 'active', 'finish', { payment_time: paid.paidAt })) ||
        (await this.orders.transition(trx, co.prepay_id, 'cancel', 'finish', { payment_time: paid.paidAt }));
      if (!moved) {
        // A second channel order of the same prepay order was paid: money to give back by hand.
        this.log.error(
          { prepayId: co.prepay_id, outTradeNo: co.out_trade_no },
          'a second payment arrived for an order that is no longer payable; refund it manually',
        );
        return false;
      }
      await this.enqueueCallback(trx, co.prepay_id, 'finish', co.channel as PaymentChannel);
      return true;
    });
    if (finished) {
      this.orders.announce(co.prepay_id, 'finish');
      this.callbacks.committed();
    }
    return finished;
  }

  /** A refund the channel reports complete. True when this call made the change. */
  async completeRefund(refund: PayRefundsTable, refundId: string | null): Promise<boolean> {
    const refunded = await this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.moveRefund(trx, refund.prepay_id, ['requesting', 'accepted', 'failed'], 'success', {
        refund_id: refundId ?? refund.refund_id,
        completed_at: Date.now(),
        last_error: null,
      });
      if (!mine) return false;
      await this.jobs.finish(trx, 'refund.follow', refund.prepay_id, 'refunded');
      if (!(await this.orders.transition(trx, refund.prepay_id, 'finish', 'refunded'))) return false;
      await this.enqueueCallback(trx, refund.prepay_id, 'refunded', refund.channel as PaymentChannel);
      return true;
    });
    if (refunded) {
      this.orders.announce(refund.prepay_id, 'refunded');
      this.callbacks.committed();
    }
    return refunded;
  }

  /** A refund the channel closed or could not complete: a definite end; the merchant may ask again. */
  async failRefund(refund: PayRefundsTable, reason: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.moveRefund(trx, refund.prepay_id, ['requesting', 'accepted'], 'failed', { last_error: reason });
      if (mine) await this.jobs.finish(trx, 'refund.follow', refund.prepay_id, 'failed');
      return mine;
    });
  }

  /** The section 6 callback of a state change, written in the same transaction as the change. */
  private async enqueueCallback(trx: Executor, prepayId: string, status: CallbackStatus, channel: PaymentChannel): Promise<void> {
    const order = (await this.store.orderWithMerchants(prepayId, trx))!;
    await this.callbacks.enqueue(trx, {
      prepayId,
      status,
      subMerchantId: order.sub_merchant_id,
      merchantId: order.merchant_id,
      ownerAppId: order.sub_app_id,
      channel,
    });
  }
}
