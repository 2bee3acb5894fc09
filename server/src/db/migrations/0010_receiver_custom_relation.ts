import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect';

/**
 * A receiver's own words for its relation (`custom_relation`), which the platform requires with
 * relation type `CUSTOM`: kept beside the receiver, since it is added again at the channel for each
 * merchant number that first shares to it. Null for every other relation type.
 */
export function receiverCustomRelation(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('ps_receivers').addColumn('custom_relation', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('ps_receivers').dropColumn('custom_relation').execute();
    },
  };
}
