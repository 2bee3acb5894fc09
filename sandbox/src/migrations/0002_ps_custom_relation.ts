import type { Kysely } from 'kysely';
import type { Dialect } from '@kit/server/plugins/dev-plugin';

/** The platform keeps a receiver's `custom_relation` (relation type `CUSTOM`), so the sandbox does too. */
export function psCustomRelation(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('sandbox_ps_receivers').addColumn('custom_relation', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('sandbox_ps_receivers').dropColumn('custom_relation').execute();
    },
  };
}
