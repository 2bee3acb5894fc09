import type { Kysely } from 'kysely';
import type { Database, Executor, PrepayOrdersTable } from '../db/schema';
import { prepared } from '../db/prepared';
export type OrderStatus = PrepayOrdersTable['status'];

const INSERT_COLUMNS = [
  'prepay_id',
  'sub_merchant_id',
  'merchant_id',
  'app_id',
  'total_cents',
  'discount_cents',
  'extra_info',
  'status',
  'create_time',
  'payment_time',
  'expire_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof PrepayOrdersTable>;

export class PrepayStore {
  // Creation and the detail read are the hot paths: both are prepared once.
  private readonly insertRow;
  private readonly findRow;

  constructor(readonly db: Kysely<Database>) {
    this.insertRow = prepared(
      db,
      (...v: unknown[]) => db.insertInto('prepay_orders').values(Object.fromEntries(INSERT_COLUMNS.map((c, i) => [c, v[i]])) as never),
      INSERT_COLUMNS.length,
    );
    this.findRow = prepared(db, (prepayId: string) => db.selectFrom('prepay_orders').selectAll().where('prepay_id', '=', prepayId), 1);
  }

  async insert(row: PrepayOrdersTable): Promise<void> {
    await this.insertRow(...INSERT_COLUMNS.map((c) => row[c]));
  }

  /** By primary key; prepared when read outside a transaction (the detail read's hot path). */
  async find(prepayId: string, on?: Executor): Promise<PrepayOrdersTable | undefined> {
    if (on) return on.selectFrom('prepay_orders').selectAll().where('prepay_id', '=', prepayId).executeTakeFirst();
    return (await this.findRow(prepayId))[0];
  }

  /**
   * Moves an order from one state to another if, and only if, it is still in `from`. Returns
   * whether this call made the change: concurrent callers race on the row, exactly one wins.
   */
  async transition(
    on: Executor,
    prepayId: string,
    from: OrderStatus,
    to: OrderStatus,
    patch: Partial<Pick<PrepayOrdersTable, 'payment_time'>> = {},
    now = Date.now(),
  ): Promise<boolean> {
    const res = await on
      .updateTable('prepay_orders')
      .set({ status: to, updated_at: now, ...patch })
      .where('prepay_id', '=', prepayId)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Active orders past their expiry, oldest first. */
  async dueForExpiry(now: number, limit = 200): Promise<string[]> {
    const due = await this.db
      .selectFrom('prepay_orders')
      .select('prepay_id')
      .where('status', '=', 'active')
      .where('expire_at', '<=', now)
      .orderBy('expire_at')
      .limit(limit)
      .execute();
    return due.map((r) => r.prepay_id);
  }

  /** Orders of a sub-merchant created since a time, newest first (POS day list). */
  listForSubMerchant(subMerchantId: string, since: number, limit = 200) {
    return this.db
      .selectFrom('prepay_orders')
      .selectAll()
      .where('sub_merchant_id', '=', subMerchantId)
      .where('create_time', '>=', since)
      .orderBy('create_time', 'desc')
      .limit(limit)
      .execute();
  }
}
