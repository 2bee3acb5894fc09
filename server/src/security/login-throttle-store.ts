/** The SQL of the login brute-force limit: one row per key in `login_failures`, shared by every instance. */
import { sql } from 'kysely';
import type { Executor } from '../db/schema';

export class LoginThrottleStore {
  constructor(private readonly db: Executor) {}

  /** The latest `blocked_until` of these keys (0: none blocked). */
  async blockedUntil(keys: readonly string[]): Promise<number> {
    const rows = await this.db.selectFrom('login_failures').select('blocked_until').where('key', 'in', keys).execute();
    return rows.reduce((m, r) => Math.max(m, Number(r.blocked_until)), 0);
  }

  /**
   * Counts one failure in one statement (concurrent instances add up): a key whose window began
   * `windowMs` or more ago starts over. Returns the counts after it.
   */
  async addFailure(key: string, now: number, windowMs: number): Promise<{ failures: number; lockouts: number }> {
    const stale = now - windowMs;
    const row = await this.db
      .insertInto('login_failures')
      .values({ key, failures: 1, window_start: now, lockouts: 0, blocked_until: 0 })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql`case when login_failures.window_start <= ${stale} then 1 else login_failures.failures + 1 end`,
          lockouts: sql`case when login_failures.window_start <= ${stale} then 0 else login_failures.lockouts end`,
          window_start: sql`case when login_failures.window_start <= ${stale} then ${now} else login_failures.window_start end`,
        }),
      )
      .returning(['failures', 'lockouts'])
      .executeTakeFirstOrThrow();
    return { failures: Number(row.failures), lockouts: Number(row.lockouts) };
  }

  /** Blocks the key until `until` unless another instance already did (then false); the window restarts so the next lockout doubles. */
  async block(key: string, now: number, until: number): Promise<boolean> {
    const res = await this.db
      .updateTable('login_failures')
      .set({ blocked_until: until, lockouts: sql`lockouts + 1`, failures: 0, window_start: now })
      .where('key', '=', key)
      .where('blocked_until', '<=', now)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('login_failures').where('key', '=', key).execute();
  }

  /** Forgets keys neither blocked nor failing for `windowMs` (housekeeping). */
  async purge(now: number, windowMs: number): Promise<void> {
    await this.db
      .deleteFrom('login_failures')
      .where('blocked_until', '<=', now)
      .where('window_start', '<=', now - windowMs)
      .execute();
  }
}
