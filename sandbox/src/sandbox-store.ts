/** SQL of the sandbox platform: its own orders, refunds and login codes (its notifications are jobs). */
import type { Clock } from '@kit/shared/clock';
import type { Kysely, Selectable } from 'kysely';
import type {
  SandboxDatabase,
  SandboxExecutor as Executor,
  SandboxOrderState,
  SandboxOrdersTable,
  SandboxPsOrdersTable,
  SandboxPsReceiversTable,
  SandboxRefundsTable,
} from './sandbox-tables';

export type SandboxOrder = Selectable<SandboxOrdersTable>;
export type SandboxRefund = Selectable<SandboxRefundsTable>;
export type SandboxPsOrder = Selectable<SandboxPsOrdersTable>;
export type SandboxPsReceiver = Selectable<SandboxPsReceiversTable>;

export class SandboxStore {
  constructor(
    readonly db: Kysely<SandboxDatabase>,
    /** The service's clock (design 7.1): the platform's times, delays and decisions. */
    readonly clock: Clock,
  ) {}

  insertOrder(row: SandboxOrdersTable): Promise<unknown> {
    return this.db.insertInto('sandbox_orders').values(row).execute();
  }

  orderByTradeNo(realm: string, mchId: string, outTradeNo: string) {
    return this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('realm', '=', realm)
      .where('mch_id', '=', mchId)
      .where('out_trade_no', '=', outTradeNo)
      .executeTakeFirst();
  }

  orderByTransaction(realm: string, mchId: string, transactionId: string) {
    return this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('realm', '=', realm)
      .where('mch_id', '=', mchId)
      .where('transaction_id', '=', transactionId)
      .executeTakeFirst();
  }

  orderByPrepayId(prepayId: string) {
    return this.db.selectFrom('sandbox_orders').selectAll().where('prepay_id', '=', prepayId).executeTakeFirst();
  }

  orderByCodeToken(token: string) {
    return this.db.selectFrom('sandbox_orders').selectAll().where('code_token', '=', token).executeTakeFirst();
  }

  async moveOrder(
    prepayId: string,
    from: SandboxOrderState,
    to: SandboxOrderState,
    patch: Partial<Pick<SandboxOrdersTable, 'transaction_id' | 'paid_at'>> = {},
    on: Executor = this.db,
  ): Promise<boolean> {
    const res = await on
      .updateTable('sandbox_orders')
      .set({ state: to, updated_at: this.clock.now(), ...patch })
      .where('prepay_id', '=', prepayId)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  refundByNumber(realm: string, mchId: string, outRefundNo: string) {
    return this.db
      .selectFrom('sandbox_refunds')
      .selectAll()
      .where('realm', '=', realm)
      .where('mch_id', '=', mchId)
      .where('out_refund_no', '=', outRefundNo)
      .executeTakeFirst();
  }

  refundsOf(prepayId: string) {
    return this.db.selectFrom('sandbox_refunds').selectAll().where('prepay_id', '=', prepayId).execute();
  }

  insertRefund(on: Executor, row: SandboxRefundsTable): Promise<unknown> {
    return on.insertInto('sandbox_refunds').values(row).execute();
  }

  /** Orders of an account paid in `[from, to)`, for its trade bill. */
  paidBetween(realm: string, mchId: string, from: number, to: number) {
    return this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('realm', '=', realm)
      .where('mch_id', '=', mchId)
      .where('paid_at', '>=', from)
      .where('paid_at', '<', to)
      .orderBy('paid_at')
      .execute();
  }

  /** Refunds of an account that succeeded in `[from, to)`, with their order. */
  refundedBetween(realm: string, mchId: string, from: number, to: number) {
    return this.db
      .selectFrom('sandbox_refunds as r')
      .innerJoin('sandbox_orders as o', 'o.prepay_id', 'r.prepay_id')
      .select([
        'r.refund_id',
        'r.out_refund_no',
        'r.refund_fee',
        'r.state',
        'r.success_at',
        'o.appid',
        'o.sub_mch_id',
        'o.transaction_id',
        'o.out_trade_no',
        'o.trade_type',
        'o.body',
      ])
      .where('r.realm', '=', realm)
      .where('r.mch_id', '=', mchId)
      .where('r.state', '=', 'SUCCESS')
      .where('r.success_at', '>=', from)
      .where('r.success_at', '<', to)
      .orderBy('r.success_at')
      .execute();
  }

  insertLoginCode(code: string, user: string, expiresAt: number): Promise<unknown> {
    return this.db.insertInto('sandbox_login_codes').values({ code, user_name: user, expires_at: expiresAt }).execute();
  }

  /** Uses a login code up: it works once, and only before it expires. */
  async takeLoginCode(code: string, now: number): Promise<string | null> {
    const row = await this.db.deleteFrom('sandbox_login_codes').where('code', '=', code).returning(['user_name', 'expires_at']).executeTakeFirst();
    if (!row || row.expires_at < now) return null;
    return row.user_name;
  }

  purgeLoginCodes(now: number): Promise<unknown> {
    return this.db.deleteFrom('sandbox_login_codes').where('expires_at', '<', now).execute();
  }

  // ---- profit sharing ----------------------------------------------------------------------

  /** Adds (or adds again) a receiver of a merchant number. */
  async upsertPsReceiver(row: SandboxPsReceiversTable): Promise<void> {
    await this.db
      .insertInto('sandbox_ps_receivers')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['mch_id', 'sub_mch_id', 'type', 'account'])
          .doUpdateSet({ name: row.name, relation_type: row.relation_type, custom_relation: row.custom_relation, removed_at: null }),
      )
      .execute();
  }

  async removePsReceiver(mchId: string, subMchId: string, type: string, account: string, now: number): Promise<void> {
    await this.db
      .updateTable('sandbox_ps_receivers')
      .set({ removed_at: now })
      .where('mch_id', '=', mchId)
      .where('sub_mch_id', '=', subMchId)
      .where('type', '=', type)
      .where('account', '=', account)
      .where('removed_at', 'is', null)
      .execute();
  }

  psReceivers(mchId: string, subMchId: string) {
    return this.db.selectFrom('sandbox_ps_receivers').selectAll().where('mch_id', '=', mchId).where('sub_mch_id', '=', subMchId).execute();
  }

  psOrderByNumber(mchId: string, subMchId: string, outOrderNo: string) {
    return this.db
      .selectFrom('sandbox_ps_orders')
      .selectAll()
      .where('mch_id', '=', mchId)
      .where('sub_mch_id', '=', subMchId)
      .where('out_order_no', '=', outOrderNo)
      .executeTakeFirst();
  }

  psOrdersOf(prepayId: string) {
    return this.db.selectFrom('sandbox_ps_orders').selectAll().where('prepay_id', '=', prepayId).orderBy('created_at').execute();
  }

  insertPsOrder(on: Executor, row: SandboxPsOrdersTable): Promise<unknown> {
    return on.insertInto('sandbox_ps_orders').values(row).execute();
  }

  /** Keeps a split's results once they are decided. */
  async settlePsResults(orderId: string, resultsJson: string): Promise<void> {
    await this.db
      .updateTable('sandbox_ps_orders')
      .set({ results_json: resultsJson })
      .where('order_id', '=', orderId)
      .where('results_json', 'is', null)
      .execute();
  }

  /** Releases what a profit-sharing order still holds frozen; false when it was released already. */
  async unfreeze(on: Executor, prepayId: string, now: number): Promise<boolean> {
    const res = await on
      .updateTable('sandbox_orders')
      .set({ unfrozen_at: now })
      .where('prepay_id', '=', prepayId)
      .where('unfrozen_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}
