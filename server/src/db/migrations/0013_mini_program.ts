import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/**
 * The mini-program's server side (docs/operations.md, "The mini-program access token"): the one access
 * token of the deployment with the lease of whoever refreshes it, and the code the platform drew for each
 * order, so that a redraw of the POS display does not call the platform again.
 */
export function miniProgram(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('mp_access_tokens')
        .addColumn('appid', 'text', (c) => c.primaryKey())
        // Sealed under the master key (`security/secret-box.ts`); null until the first refresh.
        .addColumn('token_enc', 'text')
        .addColumn('expires_at', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('fetched_at', t.bigint, (c) => c.notNull().defaultTo(0))
        // The last forced refresh (`force_refresh: true`), by any instance: the platform wants 30 s between them.
        .addColumn('forced_at', t.bigint, (c) => c.notNull().defaultTo(0))
        // The refresh lease: one instance at a time calls `stable_token`.
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', t.bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('mp_codes')
        .addColumn('prepay_id', 'text', (c) => c.primaryKey())
        .addColumn('scene', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('image', t.blob, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mp_codes_created').on('mp_codes').column('created_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('mp_codes').execute();
      await db.schema.dropTable('mp_access_tokens').execute();
    },
  };
}
