import type { Clock } from '@kit/shared/clock';
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { SpentSignature } from '../apps/replay-guard';
import type { Database, Executor, PrepayOrdersTable } from '../db/schema';
import { prepared, preparedOn } from '../db/prepared';
import type { Guard } from '../db/write-chain';
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
  // A payment's and a refund's state changes (the settlement) too.
  private readonly moveRow;
  private readonly movePaidRow;
  private readonly insertGuardedRow;

  constructor(
    readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {
    this.insertRow = prepared(
      db,
      (...v: unknown[]) => db.insertInto('prepay_orders').values(Object.fromEntries(INSERT_COLUMNS.map((c, i) => [c, v[i]])) as never),
      INSERT_COLUMNS.length,
    );
    this.findRow = prepared(db, (prepayId: string) => db.selectFrom('prepay_orders').selectAll().where('prepay_id', '=', prepayId), 1);
    this.moveRow = preparedOn(
      db,
      (prepayId: string, from: OrderStatus, to: OrderStatus, now: number) =>
        db.updateTable('prepay_orders').set({ status: to, updated_at: now }).where('prepay_id', '=', prepayId).where('status', '=', from),
      4,
    );
    this.movePaidRow = preparedOn(
      db,
      (prepayId: string, from: OrderStatus, to: OrderStatus, now: number, paymentTime: number | null) =>
        db
          .updateTable('prepay_orders')
          .set({ status: to, updated_at: now, payment_time: paymentTime })
          .where('prepay_id', '=', prepayId)
          .where('status', '=', from),
      5,
    );
    // PostgreSQL's guarded creation (`insertGuarded`): the replay guard's row, then the order's.
    this.insertGuardedRow = prepared(
      db,
      (...v: unknown[]) => {
        const [appId, sig, expiresAt, ...values] = v;
        return {
          compile: () =>
            sql<{ prepay_id: string }>`
              with guard as (
                insert into replay_guard (app_id, sig, expires_at) values (${appId}, ${sig}, ${expiresAt})
                on conflict do nothing returning 1
              )
              insert into prepay_orders (${sql.join(INSERT_COLUMNS.map((c) => sql.ref(c)))})
              select ${sql.join(values.map((x) => sql.val(x)))} where exists (select 1 from guard)
              returning prepay_id`.compile(db),
        };
      },
      3 + INSERT_COLUMNS.length,
    );
  }

  async insert(row: PrepayOrdersTable, on?: Executor): Promise<void> {
    if (on) await on.insertInto('prepay_orders').values(row).execute();
    else await this.insertRow(...INSERT_COLUMNS.map((c) => row[c]));
  }

  /**
   * Inserts the order and records its creation's signature in the replay guard (docs/signing.md),
   * committed together; false (and no order) when the signature was recorded before. Throws a unique
   * violation when the prepay id exists. On PostgreSQL one statement (one round trip, one commit:
   * the guard's insert in a data-modifying WITH, the order inserted only if it inserted a row);
   * on SQLite a transaction, which the group commit makes as cheap.
   */
  async insertGuarded(row: PrepayOrdersTable, guard: SpentSignature): Promise<boolean> {
    if (this.db.getExecutor().adapter instanceof PostgresAdapter) {
      const rows = await this.insertGuardedRow(guard.appId, guard.sig, guard.expiresAt, ...INSERT_COLUMNS.map((c) => row[c]));
      return rows.length === 1;
    }
    return this.db.transaction().execute(async (trx) => {
      const res = await trx
        .insertInto('replay_guard')
        .values({ app_id: guard.appId, sig: guard.sig, expires_at: guard.expiresAt })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0n) !== 1) return false;
      await this.insert(row, trx);
      return true;
    });
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
    now = this.clock.now(),
  ): Promise<boolean> {
    const res =
      patch.payment_time === undefined
        ? await this.moveRow(on, prepayId, from, to, now)
        : await this.movePaidRow(on, prepayId, from, to, now, patch.payment_time);
    return Number(res.numAffectedRows) === 1;
  }

  /**
   * `transition` as a query, from any of `from` (one row, in one state: at most one of them
   * matches), `guard` added on PostgreSQL (a step of a chain: `db/write-chain.ts`).
   */
  transitionQuery(
    guard: Guard,
    prepayId: string,
    from: readonly OrderStatus[],
    to: OrderStatus,
    now: number,
    patch: Partial<Pick<PrepayOrdersTable, 'payment_time'>> = {},
  ) {
    return this.db
      .updateTable('prepay_orders')
      .set({ status: to, updated_at: now, ...patch })
      .where('prepay_id', '=', prepayId)
      .where('status', 'in', [...from])
      .$if(guard !== undefined, (q) => q.where(guard!));
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

  /**
   * Orders of some sub-merchants created in `[since, until)`, newest first (the console's day list;
   * a parent merchant passes all its sub-merchants, so the `(sub_merchant_id, create_time)` index serves it).
   */
  listForSubMerchants(subMerchantIds: string[], since: number, until: number, status?: OrderStatus, limit = 500) {
    if (!subMerchantIds.length) return Promise.resolve([]);
    let q = this.db
      .selectFrom('prepay_orders')
      .selectAll()
      .where('sub_merchant_id', 'in', subMerchantIds)
      .where('create_time', '>=', since)
      .where('create_time', '<', until);
    if (status) q = q.where('status', '=', status);
    return q.orderBy('create_time', 'desc').limit(limit).execute();
  }
}
