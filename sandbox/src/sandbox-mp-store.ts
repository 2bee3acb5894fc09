/** The access tokens the sandbox's `stable_token` handed out. */
import type { Kysely } from 'kysely';
import type { SandboxDatabase, SandboxMpTokensTable } from './sandbox-tables';

export class SandboxMpStore {
  constructor(private readonly db: Kysely<SandboxDatabase>) {}

  find(token: string): Promise<SandboxMpTokensTable | undefined> {
    return this.db.selectFrom('sandbox_mp_tokens').selectAll().where('token', '=', token).executeTakeFirst();
  }

  /** The app's newest token. */
  newest(appid: string): Promise<SandboxMpTokensTable | undefined> {
    return this.db.selectFrom('sandbox_mp_tokens').selectAll().where('appid', '=', appid).orderBy('issued_at', 'desc').limit(1).executeTakeFirst();
  }

  /** The app's forced refreshes since `since`, newest first. */
  forcedSince(appid: string, since: number): Promise<Array<{ issued_at: number }>> {
    return this.db
      .selectFrom('sandbox_mp_tokens')
      .select('issued_at')
      .where('appid', '=', appid)
      .where('forced', '=', 1)
      .where('issued_at', '>=', since)
      .orderBy('issued_at', 'desc')
      .execute();
  }

  /** Stores a new token; a forced one cuts every older token of the app down to `graceUntil`. */
  async issue(row: SandboxMpTokensTable, graceUntil?: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (graceUntil !== undefined) {
        await trx
          .updateTable('sandbox_mp_tokens')
          .set({ expires_at: graceUntil })
          .where('appid', '=', row.appid)
          .where('expires_at', '>', graceUntil)
          .execute();
      }
      await trx.insertInto('sandbox_mp_tokens').values(row).execute();
    });
  }

  /** Forgets tokens that ended before `before`. */
  async purge(before: number): Promise<void> {
    await this.db.deleteFrom('sandbox_mp_tokens').where('expires_at', '<', before).execute();
  }
}
