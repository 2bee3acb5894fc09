/** SQL of payments: channel orders and refunds, plus the order-with-merchants read the rules need. */
import type { Clock } from '@kit/shared/clock';
import { sql, type Kysely } from 'kysely';
import type { PaymentChannel } from '@kit/shared';
import type { ChannelOrderState, Database, Executor, PaidVia, PayChannelOrdersTable, PayRefundsTable, RefundState } from '../db/schema';
import { prepared, preparedOn } from '../db/prepared';
import { batchedRead, type ReadOne } from '../db/batched-read';
import type { Dialect } from '../db/dialect';
import type { Guard } from '../db/write-chain';

type ChannelOrderPatch = Partial<Pick<PayChannelOrdersTable, 'channel_prepay_id' | 'code_url' | 'answer_json' | 'transaction_id' | 'paid_at' | 'paid_via'>>;
type RefundPatch = Partial<Pick<PayRefundsTable, 'refund_id' | 'last_error' | 'completed_at' | 'app_id' | 'requested_by'>>;

/** The states a payment may find its channel order in (a payment that races a close still counts). */
const PAYABLE_STATES: ChannelOrderState[] = ['creating', 'open', 'closed', 'failed'];

export class PaymentStore {
  // A payment notification's statements are prepared once (docs/performance.md).
  private readonly channelOrderRow: ReadOne<PayChannelOrdersTable>;
  private readonly orderWithMerchantsRow;

  constructor(
    readonly db: Kysely<Database>,
    dialect: Dialect,
    readonly clock: Clock,
  ) {
    const row = prepared(db, (outTradeNo: string) => db.selectFrom('pay_channel_orders').selectAll().where('out_trade_no', '=', outTradeNo), 1);
    const one = async (outTradeNo: string) => (await row(outTradeNo))[0];
    // PostgreSQL: the reads of a turn in one round trip (the notifications that arrive together). SQLite
    // runs in this process, where a statement costs no round trip and a batch would only add a wait.
    const rows = prepared(
      db,
      (outTradeNos: string[]) =>
        db
          .selectFrom('pay_channel_orders')
          .selectAll()
          .where(sql<boolean>`out_trade_no = any(${outTradeNos}::text[])`),
      1,
    );
    this.channelOrderRow = dialect === 'postgres' ? batchedRead(one, rows, (co) => co.out_trade_no) : one;
    this.orderWithMerchantsRow = preparedOn(db, (prepayId: string) => this.orderWithMerchantsQuery(db, prepayId), 1);
  }

  /** The prepay order with what visibility, profit sharing and callbacks need about its merchants. */
  async orderWithMerchants(prepayId: string, on: Executor = this.db) {
    return (await this.orderWithMerchantsRow(on, prepayId)).rows[0];
  }

  private orderWithMerchantsQuery(on: Executor, prepayId: string) {
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
      .where('o.prepay_id', '=', prepayId);
  }

  // ---- channel orders ------------------------------------------------------------------------

  /** The payable (or being created) channel order of a prepay order: a partial unique index allows one. */
  payableChannelOrder(prepayId: string, on: Executor = this.db) {
    return on.selectFrom('pay_channel_orders').selectAll().where('prepay_id', '=', prepayId).where('state', 'in', ['creating', 'open']).executeTakeFirst();
  }

  async channelOrder(outTradeNo: string, on: Executor = this.db) {
    if (on === this.db) return this.channelOrderRow(outTradeNo);
    return on.selectFrom('pay_channel_orders').selectAll().where('out_trade_no', '=', outTradeNo).executeTakeFirst();
  }

  /** Of the given orders, those paid through a channel order placed with profit sharing. */
  async paidWithProfitSharing(prepayIds: string[]): Promise<string[]> {
    if (prepayIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('pay_channel_orders')
      .select('prepay_id')
      .distinct()
      .where('prepay_id', 'in', prepayIds)
      .where('state', '=', 'paid')
      .where('profit_sharing', '=', 1)
      .execute();
    return rows.map((r) => r.prepay_id);
  }

  /**
   * The channel orders that paid their order: paid, and not recorded as a second payment (refunded on
   * its own: `duplicate-payments.ts`). The one rule for "which payment counts", whatever the times.
   */
  private countedPayments(on: Executor, prepayIds: readonly string[]) {
    return on
      .selectFrom('pay_channel_orders as c')
      .where('c.prepay_id', 'in', [...prepayIds])
      .where('c.state', '=', 'paid')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('pay_duplicate_payments as d').select('d.out_trade_no').whereRef('d.out_trade_no', '=', 'c.out_trade_no'))),
      )
      .orderBy('c.paid_at', 'asc');
  }

  /** The channel order that paid the order (`countedPayments`). */
  paidChannelOrder(prepayId: string, on: Executor = this.db) {
    return this.countedPayments(on, [prepayId]).selectAll('c').executeTakeFirst();
  }

  channelOrdersOf(prepayId: string) {
    return this.db.selectFrom('pay_channel_orders').selectAll().where('prepay_id', '=', prepayId).orderBy('created_at').execute();
  }

  /** Inserts a `creating` row; throws a unique violation when another payable one exists. */
  insertChannelOrder(on: Executor, row: PayChannelOrdersTable): Promise<unknown> {
    return on.insertInto('pay_channel_orders').values(row).execute();
  }

  /**
   * A payment of a channel order in any state but `paid` (the settlement's first step: `Settlement`),
   * `guard` added on PostgreSQL (`db/write-chain.ts`).
   */
  markPaidQuery(guard: Guard, outTradeNo: string, transactionId: string, paidAt: number, via: PaidVia, now: number) {
    return this.db
      .updateTable('pay_channel_orders')
      .set({ state: 'paid', updated_at: now, transaction_id: transactionId, paid_at: paidAt, paid_via: via })
      .where('out_trade_no', '=', outTradeNo)
      .where('state', 'in', PAYABLE_STATES)
      .$if(guard !== undefined, (q) => q.where(guard!));
  }

  /** Moves a channel order between states if it is in one of `from`; true when this call did it. */
  async moveChannelOrder(
    on: Executor,
    outTradeNo: string,
    from: ChannelOrderState[],
    to: ChannelOrderState,
    patch: ChannelOrderPatch = {},
    now = this.clock.now(),
  ): Promise<boolean> {
    const res = await on
      .updateTable('pay_channel_orders')
      .set({ state: to, updated_at: now, ...patch })
      .where('out_trade_no', '=', outTradeNo)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  // ---- refunds ---------------------------------------------------------------------------------

  refund(prepayId: string, on: Executor = this.db) {
    return on.selectFrom('pay_refunds').selectAll().where('prepay_id', '=', prepayId).executeTakeFirst();
  }

  /** When the given orders' refunds completed, for those whose refund did. */
  async refundsCompleted(prepayIds: readonly string[]): Promise<Map<string, number>> {
    if (!prepayIds.length) return new Map();
    const rows = await this.db
      .selectFrom('pay_refunds')
      .select(['prepay_id', 'completed_at'])
      .where('prepay_id', 'in', [...prepayIds])
      .where('completed_at', 'is not', null)
      .execute();
    return new Map(rows.map((r) => [r.prepay_id, r.completed_at!]));
  }

  /** The channel each given order was paid through, for those paid (`countedPayments`: never a second payment's). */
  async paidChannels(prepayIds: readonly string[]): Promise<Map<string, PaymentChannel>> {
    if (!prepayIds.length) return new Map();
    const rows = await this.countedPayments(this.db, prepayIds).select(['c.prepay_id', 'c.channel']).execute();
    // Oldest first, so the first of an order's rows wins (a second one was a race not yet recorded as such).
    const paid = new Map<string, PaymentChannel>();
    for (const r of rows) if (!paid.has(r.prepay_id)) paid.set(r.prepay_id, r.channel as PaymentChannel);
    return paid;
  }

  refundByNumber(outRefundNo: string) {
    return this.db.selectFrom('pay_refunds').selectAll().where('out_refund_no', '=', outRefundNo).executeTakeFirst();
  }

  /** Claims the order's one refund; throws a unique violation when it already exists. */
  insertRefund(on: Executor, row: PayRefundsTable): Promise<unknown> {
    return on.insertInto('pay_refunds').values(row).execute();
  }

  async moveRefund(on: Executor, prepayId: string, from: RefundState[], to: RefundState, patch: RefundPatch = {}, now = this.clock.now()): Promise<boolean> {
    const res = await on
      .updateTable('pay_refunds')
      .set({ state: to, updated_at: now, ...patch })
      .where('prepay_id', '=', prepayId)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Takes over a refund that is still `state` and unchanged since `seenUpdatedAt` (compare and
   * set): of several instances or requests resuming it, exactly one wins.
   */
  async takeOverRefund(
    on: Executor,
    prepayId: string,
    state: RefundState,
    seenUpdatedAt: number,
    patch: RefundPatch = {},
    now = this.clock.now(),
  ): Promise<boolean> {
    const res = await on
      .updateTable('pay_refunds')
      .set({ state: 'requesting', updated_at: now, ...patch })
      .where('prepay_id', '=', prepayId)
      .where('state', '=', state)
      .where('updated_at', '=', seenUpdatedAt)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Notes why the last call about a refund failed, leaving its state and age as they are. */
  async noteRefundError(prepayId: string, error: string): Promise<void> {
    await this.db.updateTable('pay_refunds').set({ last_error: error }).where('prepay_id', '=', prepayId).execute();
  }
}
