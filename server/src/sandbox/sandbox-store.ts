/** SQL of the sandbox platform: its own orders, refunds, notification queue and login codes. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, SandboxNotificationsTable, SandboxOrdersTable, SandboxRefundsTable } from '../db/schema';
import type { Dialect } from '../db/dialect';

export type SandboxOrder = Selectable<SandboxOrdersTable>;
export type SandboxNotification = Selectable<SandboxNotificationsTable>;

export class SandboxStore {
  constructor(readonly db: Kysely<Database>, private readonly dialect: Dialect) {}

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

  async moveOrder(prepayId: string, from: string, to: string, patch: Partial<Pick<SandboxOrdersTable, 'transaction_id' | 'paid_at'>> = {}): Promise<boolean> {
    const res = await this.db
      .updateTable('sandbox_orders')
      .set({ state: to, updated_at: Date.now(), ...patch })
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

  insertRefund(row: SandboxRefundsTable): Promise<unknown> {
    return this.db.insertInto('sandbox_refunds').values(row).execute();
  }

  insertNotification(row: Insertable<SandboxNotificationsTable>): Promise<unknown> {
    return this.db.insertInto('sandbox_notifications').values(row).execute();
  }

  /** Claims due notifications behind a lease (see the callback outbox: same pattern). */
  claimDue(now: number, limit: number, leaseUntil: number, token: string): Promise<SandboxNotification[]> {
    return this.db
      .updateTable('sandbox_notifications')
      .set({ next_at: leaseUntil, claim_token: token })
      .where('id', 'in', (eb) => {
        let q = eb.selectFrom('sandbox_notifications').select('id').where('state', '=', 'pending').where('next_at', '<=', now).orderBy('next_at').limit(limit);
        if (this.dialect === 'postgres') q = q.forUpdate().skipLocked();
        return q;
      })
      .returningAll()
      .execute();
  }

  async settleNotification(id: number, token: string, patch: Partial<Pick<SandboxNotificationsTable, 'state' | 'attempts' | 'next_at' | 'duplicates_left' | 'acked_at'>>) {
    await this.db.updateTable('sandbox_notifications').set({ ...patch, claim_token: null }).where('id', '=', id).where('claim_token', '=', token).execute();
  }

  notificationsFor(ref: string) {
    return this.db.selectFrom('sandbox_notifications').selectAll().where('ref', '=', ref).orderBy('id').execute();
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
}
