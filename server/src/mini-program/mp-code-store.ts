/** The codes the platform drew, one per order. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { MpCodesTable } from './mp-tables';

export class MpCodeStore {
  constructor(private readonly db: Kysely<Database>) {}

  async find(prepayId: string): Promise<MpCodesTable | undefined> {
    const row = await this.db.selectFrom('mp_codes').selectAll().where('prepay_id', '=', prepayId).executeTakeFirst();
    // SQLite answers a Buffer, PostgreSQL a Buffer too (bytea); a Uint8Array from another driver is wrapped.
    return row ? { ...row, image: Buffer.isBuffer(row.image) ? row.image : Buffer.from(row.image) } : undefined;
  }

  /** Keeps the first code drawn for an order: two redraws at once store one. */
  async insert(row: MpCodesTable): Promise<void> {
    await this.db
      .insertInto('mp_codes')
      .values(row)
      .onConflict((oc) => oc.column('prepay_id').doNothing())
      .execute();
  }

  /** Deletes codes drawn before `before` (their orders can no longer be paid); how many. */
  async purge(before: number): Promise<number> {
    const r = await this.db.deleteFrom('mp_codes').where('created_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
