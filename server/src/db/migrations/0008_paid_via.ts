import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect';

/**
 * How the kit learned of each payment (`notification`, `query`, `reconciliation`), kept beside the
 * payment's other facts for the console's timeline. Rows paid before it stay null: nobody knows.
 */
export function paidVia(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('pay_channel_orders').addColumn('paid_via', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('pay_channel_orders').dropColumn('paid_via').execute();
    },
  };
}
