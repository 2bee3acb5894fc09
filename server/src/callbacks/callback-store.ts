/** SQL of the callback outbox (DESIGN 2.5): rows written with state changes, claimed by delivery workers. */
import type { Kysely } from 'kysely';
import type { Database, CallbackAttemptsTable, CallbackOutboxTable } from '../db/schema';
import type { Dialect } from '../db/dialect';
import type { Executor } from '../orders/prepay-store';
import type { Insertable, Selectable } from 'kysely';

export type OutboxRow = Selectable<CallbackOutboxTable>;

export class CallbackStore {
  constructor(readonly db: Kysely<Database>, private readonly dialect: Dialect) {}

  /** Inside the caller's transaction. A second row for the same event is ignored. */
  async insert(on: Executor, row: Insertable<CallbackOutboxTable>): Promise<boolean> {
    const res = await on.insertInto('callback_outbox').values(row).onConflict((oc) => oc.column('event_key').doNothing()).executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /**
   * Claims due rows by pushing their next attempt past a lease: a crashed worker's rows come back
   * when the lease ends. On PostgreSQL `FOR UPDATE SKIP LOCKED` keeps instances off each other's rows.
   */
  claimDue(now: number, limit: number, leaseUntil: number, token: string): Promise<OutboxRow[]> {
    return this.db
      .updateTable('callback_outbox')
      .set({ next_attempt_at: leaseUntil, claim_token: token })
      .where('id', 'in', (eb) => {
        let q = eb
          .selectFrom('callback_outbox')
          .select('id')
          .where('state', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at')
          .limit(limit);
        if (this.dialect === 'postgres') q = q.forUpdate().skipLocked();
        return q;
      })
      .returningAll()
      .execute();
  }

  /** Records the outcome of a claimed attempt; ignored when the claim was lost meanwhile. */
  async settle(
    id: number,
    token: string,
    patch: Partial<Pick<CallbackOutboxTable, 'state' | 'attempts' | 'next_attempt_at' | 'last_error' | 'delivered_at'>>,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable('callback_outbox')
      .set({ ...patch, claim_token: null })
      .where('id', '=', id)
      .where('claim_token', '=', token)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  insertAttempt(row: Insertable<CallbackAttemptsTable>): Promise<unknown> {
    return this.db.insertInto('callback_attempts').values(row).execute();
  }

  forPrepay(prepayId: string) {
    return this.db.selectFrom('callback_outbox').selectAll().where('prepay_id', '=', prepayId).orderBy('id').execute();
  }

  attempts(outboxId: number) {
    return this.db.selectFrom('callback_attempts').selectAll().where('outbox_id', '=', outboxId).orderBy('attempt').execute();
  }
}
