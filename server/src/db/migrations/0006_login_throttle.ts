import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/** Failed logins per account and per client address (the brute-force limit of every login): one row per key, shared by every instance. */
export function loginThrottle(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('login_failures')
        // `account:<id>` or `address:<ip>`.
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('window_start', t.bigint, (c) => c.notNull())
        // Lockouts so far in this window: each one is twice as long as the last.
        .addColumn('lockouts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('blocked_until', t.bigint, (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('login_failures').execute();
    },
  };
}
