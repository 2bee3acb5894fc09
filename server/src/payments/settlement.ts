/**
 * The two money transitions, whoever learns of them first (a channel notification, an order or
 * refund query, a close that finds the order paid, the daily statement), on any instance: a payment moves the order to
 * `finish`, a completed refund to `refunded`. Each writes its state changes, the section 6 callback
 * and the end of its follow-up job in one transaction (a payment on PostgreSQL: in one statement);
 * the loser of a race changes nothing, so one payment gives one
 * transition and one callback.
 */
import type { Clock } from '@kit/shared/clock';
import type { CallbackStatus, PaymentChannel } from '@kit/shared';
import type { Executor, PaidVia, PayChannelOrdersTable, PayRefundsTable } from '../db/schema';
import type { OrderTransitions } from '../orders/order-transitions';
import type { CallbackService } from '../callbacks/callback-service';
import type { Jobs } from '../jobs/jobs';
import type { PaymentStore } from './payment-store';
import { DUPLICATE_QUEUE, type DuplicatePayments } from './duplicate-payments';
import { writeChain, type ChainStep } from '../db/write-chain';

import type { PaidFacts } from './providers/provider';

/** The arguments of a payment's chain of writes (`Settlement.payment`), by name. */
interface PaymentArgs extends Record<string, unknown> {
  outTradeNo: string;
  transactionId: string;
  paidAt: number;
  via: PaidVia;
  now: number;
  prepayId: string;
  channel: PaymentChannel;
}
const PAYMENT_ARGS = ['outTradeNo', 'transactionId', 'paidAt', 'via', 'now', 'prepayId', 'channel'] as const satisfies readonly (keyof PaymentArgs)[];

export class Settlement {
  /**
   * A payment's writes, each only if the one it follows wrote a row: the channel order paid (only
   * the first to record the payment counts), its follow-up job ended, the order moved to `finish`
   * (from `active`, or from `cancel`: a payment that raced the expiry still counts, the money was
   * taken), and its callback. One statement on PostgreSQL, one
   * transaction on SQLite, from the same steps (`db/write-chain.ts`, docs/performance.md). When the
   * order was not moved (already paid through another of its channel orders), the payment is a
   * second one: recorded with its refund to make and the job that makes it, in the same statement
   * or transaction, so that no crash can keep the money (design 6.3, `duplicate-payments.ts`).
   */
  private readonly payment;

  constructor(
    private readonly store: PaymentStore,
    private readonly orders: OrderTransitions,
    private readonly callbacks: CallbackService,
    private readonly jobs: Jobs,
    private readonly duplicates: DuplicatePayments,
    private readonly clock: Clock,
  ) {
    const steps: ChainStep<PaymentArgs>[] = [
      {
        name: 'paid',
        build: (g, a) => this.store.markPaidQuery(g, a.outTradeNo, a.transactionId, a.paidAt, a.via, a.now).returning('out_trade_no'),
      },
      {
        name: 'followed',
        after: 'paid',
        build: (g, a) => this.jobs.finishQuery(g, 'payment.reconcile', a.outTradeNo, 'paid', a.now).returning('id'),
      },
      {
        name: 'moved',
        after: 'paid',
        build: (g, a) => this.orders.transitionQuery(g, a.prepayId, ['active', 'cancel'], 'finish', a.now, { payment_time: a.paidAt }).returning('prepay_id'),
      },
      {
        name: 'callback',
        after: 'moved',
        build: (g, a) => this.callbacks.enqueueOfOrderQuery(g, a.prepayId, 'finish', a.channel, a.now).returning('id'),
      },
      ...duplicateSteps(duplicates, jobs),
    ];
    this.payment = writeChain(store.db, steps, PAYMENT_ARGS);
  }

  /**
   * A verified payment of a channel order. `via` is how we learned of it, kept for the console's
   * timeline; only the first to record the payment counts. True when this call made the change
   * (false for a second payment of the order, which is refunded: `duplicate-payments.ts`).
   */
  async recordPayment(co: PayChannelOrdersTable, facts: PaidFacts, via: PaidVia): Promise<boolean> {
    // The channel's clock is not ours: a payment is never recorded before the order it pays (4.2).
    const paidAt = Math.max(facts.paidAt, co.created_at);
    const wrote = await this.payment({
      outTradeNo: co.out_trade_no,
      transactionId: facts.transactionId,
      paidAt,
      via,
      now: this.clock.now(),
      prepayId: co.prepay_id,
      channel: co.channel as PaymentChannel,
    });
    if (!wrote.paid) return false;
    if (!wrote.moved) {
      // The order was already paid through another of its channel orders: an order is paid once,
      // so this payment goes back to the payer, automatically (design 6.3; `duplicate-payments.ts`).
      if (wrote.second) this.duplicates.recorded(co, facts, via);
      return false;
    }
    this.orders.announce(co.prepay_id, 'finish');
    this.callbacks.committed();
    // Paid through a channel order that was no longer the payable one (the payer switched): the one
    // payable now must not take a second payment. Only then a read more; the usual payment, through
    // the order's one payable channel order, has none to close.
    if (co.state !== 'open' && co.state !== 'creating') await this.duplicates.closeOthers(co);
    return true;
  }

  /** A refund the channel reports complete. True when this call made the change. */
  async completeRefund(refund: PayRefundsTable, refundId: string | null): Promise<boolean> {
    const refunded = await this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.moveRefund(trx, refund.prepay_id, ['requesting', 'accepted', 'failed'], 'success', {
        refund_id: refundId ?? refund.refund_id,
        completed_at: this.clock.now(),
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

/**
 * The rare branch of a payment's chain: the channel order paid, the order not moved (it was paid
 * already). Free for the usual payment: skipped on SQLite, a WITH that writes nothing on PostgreSQL.
 */
function duplicateSteps(duplicates: DuplicatePayments, jobs: Jobs): ChainStep<PaymentArgs>[] {
  return [
    {
      name: 'second',
      after: 'paid',
      unless: 'moved',
      build: (g, a) => duplicates.store.recordQuery(g, a.outTradeNo, a.now).returning('out_trade_no'),
    },
    {
      name: 'refunding',
      after: 'second',
      build: (g, a) => jobs.enqueueQuery(g, { queue: DUPLICATE_QUEUE, key: a.outTradeNo, ref: a.prepayId, at: a.now }, a.now).returning('id'),
    },
  ];
}
