import type { Kysely } from 'kysely';
import type { Dialect } from '@kit/server/plugins/dev-plugin';
import { columnTypes } from '@kit/server/plugins/kit';

/**
 * The access tokens the sandbox's `stable_token` handed out (docs/sandbox.md, "The mini-program's
 * server API"), in the database like the platform's orders: instances sharing a database share them,
 * as they share the platform.
 */
export function mpTokens(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sandbox_mp_tokens')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('appid', 'text', (c) => c.notNull())
        .addColumn('forced', 'integer', (c) => c.notNull())
        .addColumn('issued_at', t.bigint, (c) => c.notNull())
        // Shortened to the grace period when a forced refresh replaces the token.
        .addColumn('expires_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sandbox_mp_tokens_appid').on('sandbox_mp_tokens').columns(['appid', 'issued_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('sandbox_mp_tokens').execute();
    },
  };
}
