/** SQL of duplicate payments (`pay_duplicate_payments`, migration 0014): a second payment of an order and its automatic refund. */
import type { Clock } from '@kit/shared/clock';
import { sql, type Kysely } from 'kysely';
import type { Database, Executor, PayDuplicatePaymentsTable, RefundState } from '../db/schema';
import type { Guard } from '../db/write-chain';

type DuplicatePatch = Partial<Pick<PayDuplicatePaymentsTable, 'refund_id' | 'last_error' | 'completed_at'>>;

export class DuplicateStore {
  constructor(
    readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /**
   * Records the payment of channel order `outTradeNo` as a second payment of its order, its refund
   * still to make: a step of the settlement's chain of writes (`db/write-chain.ts`), `guard` added
   * on PostgreSQL. Nothing when it is recorded already. The refund number is the channel order's
   * number after a `D`: the same on every retry and after any crash, never one of the order's own
   * refunds (`R` and 27 characters), and within what every platform takes (letters and digits, at
   * most 64).
   */
  recordQuery(guard: Guard, outTradeNo: string, now: number) {
    const int = (v: number) => sql<number>`cast(${v} as bigint)`;
    return this.db
      .insertInto('pay_duplicate_payments')
      .columns(['out_trade_no', 'prepay_id', 'channel', 'out_refund_no', 'refund_cents', 'state', 'created_at', 'updated_at'])
      .expression(
        this.db
          .selectFrom('pay_channel_orders as c')
          .select([
            'c.out_trade_no',
            'c.prepay_id',
            'c.channel',
            sql<string>`${sql.lit('D')} || c.out_trade_no`.as('out_refund_no'),
            'c.total_cents',
            sql.lit('requesting').as('state'),
            int(now).as('created_at'),
            int(now).as('updated_at'),
          ])
          .where('c.out_trade_no', '=', outTradeNo)
          .$if(guard !== undefined, (q) => q.where(guard!)),
      )
      .onConflict((oc) => oc.column('out_trade_no').doNothing());
  }

  byChannelOrder(outTradeNo: string, on: Executor = this.db) {
    return on.selectFrom('pay_duplicate_payments').selectAll().where('out_trade_no', '=', outTradeNo).executeTakeFirst();
  }

  byRefundNumber(outRefundNo: string) {
    return this.db.selectFrom('pay_duplicate_payments').selectAll().where('out_refund_no', '=', outRefundNo).executeTakeFirst();
  }

  ofOrder(prepayId: string) {
    return this.db.selectFrom('pay_duplicate_payments').selectAll().where('prepay_id', '=', prepayId).orderBy('created_at').execute();
  }

  async move(on: Executor, outTradeNo: string, from: RefundState[], to: RefundState, patch: DuplicatePatch = {}, now = this.clock.now()): Promise<boolean> {
    const res = await on
      .updateTable('pay_duplicate_payments')
      .set({ state: to, updated_at: now, ...patch })
      .where('out_trade_no', '=', outTradeNo)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Notes why the last call about a duplicate's refund failed, leaving its state as it is. */
  async noteError(outTradeNo: string, error: string): Promise<void> {
    await this.db.updateTable('pay_duplicate_payments').set({ last_error: error }).where('out_trade_no', '=', outTradeNo).execute();
  }

  /** The order's channel orders still payable (or being placed) besides `outTradeNo`. */
  otherPayable(prepayId: string, outTradeNo: string) {
    return this.db
      .selectFrom('pay_channel_orders')
      .select(['out_trade_no', 'prepay_id'])
      .where('prepay_id', '=', prepayId)
      .where('out_trade_no', '!=', outTradeNo)
      .where('state', 'in', ['creating', 'open'])
      .execute();
  }

  /** A channel's duplicates with their order's sub-merchant, as the reconciliation reads them. */
  private ofChannel(channel: string) {
    return this.db
      .selectFrom('pay_duplicate_payments as d')
      .innerJoin('prepay_orders as o', 'o.prepay_id', 'd.prepay_id')
      .select(['d.out_trade_no', 'd.out_refund_no', 'd.prepay_id', 'd.state', 'd.refund_cents', 'o.sub_merchant_id'])
      .where('d.channel', '=', channel);
  }

  /** Duplicates of a channel whose refunds are named (a bill's refund lines), with their order's sub-merchant. */
  refundsNamed(channel: string, outRefundNos: string[]) {
    if (!outRefundNos.length) return Promise.resolve([]);
    return this.ofChannel(channel).where('d.out_refund_no', 'in', outRefundNos).execute();
  }

  /** Duplicates of a channel whose refunds completed in `[from, to)`. */
  refundedBetween(channel: string, from: number, to: number) {
    return this.ofChannel(channel).where('d.state', '=', 'success').where('d.completed_at', '>=', from).where('d.completed_at', '<', to).execute();
  }
}
