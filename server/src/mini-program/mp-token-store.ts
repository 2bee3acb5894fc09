/**
 * The access token's row. The refresh lease is a compare-and-set on `lease_until` (one UPDATE,
 * which SQLite and PostgreSQL both run atomically): the instance whose UPDATE changed the row holds
 * it until it saves the new token or the lease runs out (an instance that died while refreshing).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { MpAccessTokensTable } from './mp-tables';

export class MpTokenStore {
  constructor(private readonly db: Kysely<Database>) {}

  async read(appid: string): Promise<MpAccessTokensTable | undefined> {
    return this.db.selectFrom('mp_access_tokens').selectAll().where('appid', '=', appid).executeTakeFirst();
  }

  /** Creates the empty row once, so that every lease is an UPDATE of it. */
  async ensure(appid: string): Promise<void> {
    await this.db
      .insertInto('mp_access_tokens')
      .values({ appid, token_enc: null, expires_at: 0, fetched_at: 0, forced_at: 0, lease_owner: null, lease_until: 0 })
      .onConflict((oc) => oc.column('appid').doNothing())
      .execute();
  }

  /** Takes the refresh lease when nobody holds it; whether this caller got it. */
  async takeLease(appid: string, owner: string, now: number, forMs: number): Promise<boolean> {
    const r = await this.db
      .updateTable('mp_access_tokens')
      .set({ lease_owner: owner, lease_until: now + forMs })
      .where('appid', '=', appid)
      .where('lease_until', '<=', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Stores a new token and gives the lease back, if the lease is still this caller's. */
  async save(appid: string, owner: string, row: { token_enc: string; expires_at: number; fetched_at: number; forced: boolean }): Promise<boolean> {
    const r = await this.db
      .updateTable('mp_access_tokens')
      .set({
        token_enc: row.token_enc,
        expires_at: row.expires_at,
        fetched_at: row.fetched_at,
        ...(row.forced ? { forced_at: row.fetched_at } : {}),
        lease_owner: null,
        lease_until: 0,
      })
      .where('appid', '=', appid)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Gives the lease back without a new token (the refresh failed); `forcedAt`: a forced call was made all the same. */
  async release(appid: string, owner: string, forcedAt?: number): Promise<void> {
    await this.db
      .updateTable('mp_access_tokens')
      .set({ lease_owner: null, lease_until: 0, ...(forcedAt ? { forced_at: forcedAt } : {}) })
      .where('appid', '=', appid)
      .where('lease_owner', '=', owner)
      .execute();
  }
}
