import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/**
 * The anchor transaction in flight, one per contract, written before it is sent (docs/chain.md,
 * "Crashes, outages and several instances"): the next anchorer (after a restart, or another instance
 * taking over) waits for it, or sends it again with the same nonce if the EVM node lost it, instead
 * of sending a second transaction behind it.
 */
export function chainAnchorPending(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('chain_anchor_pending')
        .addColumn('contract', 'text', (c) => c.primaryKey())
        .addColumn('from_block', t.bigint, (c) => c.notNull())
        .addColumn('to_block', t.bigint, (c) => c.notNull())
        .addColumn('sender', 'text', (c) => c.notNull())
        .addColumn('nonce', t.bigint, (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        // The signed transaction: sent again byte for byte (same hash, same nonce) when the node loses it.
        .addColumn('raw_tx', 'text', (c) => c.notNull())
        .addColumn('sent_at', t.bigint, (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('chain_anchor_pending').execute();
    },
  };
}
