/** SQL of payments: channel orders and refunds, plus the order-with-merchants read the rules need. */
import type { Kysely } from 'kysely';
import type { Database, PayChannelOrdersTable, PayRefundsTable } from '../db/schema';
import type { Executor } from '../orders/prepay-store';

/** A `creating` row older than this belongs to a request that died; it no longer blocks. */
export const CREATING_STALE_MS = 30_000;

export class PaymentStore {
  constructor(readonly db: Kysely<Database>) {}

  /** The prepay order with what visibility, profit sharing and callbacks need about its merchants. */
  orderWithMerchants(prepayId: string, on: Executor = this.db) {
    return on
      .selectFrom('prepay_orders as o')
      .innerJoin('merchants as m', 'm.id', 'o.sub_merchant_id')
      .leftJoin('merchants as p', 'p.id', 'm.parent_merchant_id')
      .select([
        'o.prepay_id',
        'o.status',
        'o.total_cents',
        'o.expire_at',
        'o.app_id',
        'o.sub_merchant_id',
        'o.merchant_id',
        'm.display_name',
        'm.app_id as sub_app_id',
        'm.disabled',
        'm.profit_sharing_contracted',
        'p.app_id as parent_app_id',
        'p.disabled as parent_disabled',
        'p.profit_sharing_contracted as parent_profit_sharing_contracted',
      ])
      .where('o.prepay_id', '=', prepayId)
      .executeTakeFirst();
  }

  /** The payable (or being created) channel order of a prepay order, if any. */
  openChannelOrder(prepayId: string, on: Executor = this.db) {
    return on
      .selectFrom('pay_channel_orders')
      .selectAll()
      .where('prepay_id', '=', prepayId)
      .where('state', 'in', ['creating', 'open'])
      .executeTakeFirst();
  }

  channelOrder(outTradeNo: string, on: Executor = this.db) {
    return on.selectFrom('pay_channel_orders').selectAll().where('out_trade_no', '=', outTradeNo).executeTakeFirst();
  }

  paidChannelOrder(prepayId: string, on: Executor = this.db) {
    return on
      .selectFrom('pay_channel_orders')
      .selectAll()
      .where('prepay_id', '=', prepayId)
      .where('state', '=', 'paid')
      .orderBy('paid_at', 'asc')
      .executeTakeFirst();
  }

  /** Inserts a `creating` row; throws a unique violation when another payable one exists. */
  insertChannelOrder(row: PayChannelOrdersTable): Promise<unknown> {
    return this.db.insertInto('pay_channel_orders').values(row).execute();
  }

  /** Moves a channel order between states if it is in one of `from`; true when this call did it. */
  async moveChannelOrder(
    on: Executor,
    outTradeNo: string,
    from: string[],
    to: string,
    patch: Partial<Pick<PayChannelOrdersTable, 'channel_prepay_id' | 'code_url' | 'answer_json' | 'transaction_id' | 'paid_at'>> = {},
    now = Date.now(),
  ): Promise<boolean> {
    const res = await on
      .updateTable('pay_channel_orders')
      .set({ state: to, updated_at: now, ...patch })
      .where('out_trade_no', '=', outTradeNo)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Gives up a `creating` row left by a request that died before it finished. */
  async failStaleCreating(outTradeNo: string, now = Date.now()): Promise<boolean> {
    const res = await this.db
      .updateTable('pay_channel_orders')
      .set({ state: 'failed', updated_at: now })
      .where('out_trade_no', '=', outTradeNo)
      .where('state', '=', 'creating')
      .where('created_at', '<', now - CREATING_STALE_MS)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Channel orders that may still be paid at the channel (to close on expiry). */
  closableChannelOrders(prepayId: string) {
    return this.db
      .selectFrom('pay_channel_orders')
      .selectAll()
      .where('prepay_id', '=', prepayId)
      .where('state', 'in', ['creating', 'open'])
      .execute();
  }

  refund(prepayId: string, on: Executor = this.db) {
    return on.selectFrom('pay_refunds').selectAll().where('prepay_id', '=', prepayId).executeTakeFirst();
  }

  refundByNumber(outRefundNo: string) {
    return this.db.selectFrom('pay_refunds').selectAll().where('out_refund_no', '=', outRefundNo).executeTakeFirst();
  }

  /** Claims the order's one refund; throws a unique violation when it already exists. */
  insertRefund(row: PayRefundsTable): Promise<unknown> {
    return this.db.insertInto('pay_refunds').values(row).execute();
  }

  async moveRefund(
    on: Executor,
    prepayId: string,
    from: string[],
    to: string,
    patch: Partial<Pick<PayRefundsTable, 'refund_id' | 'last_error' | 'completed_at' | 'app_id' | 'requested_by'>> = {},
    now = Date.now(),
  ): Promise<boolean> {
    const res = await on
      .updateTable('pay_refunds')
      .set({ state: to, updated_at: now, ...patch })
      .where('prepay_id', '=', prepayId)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}
