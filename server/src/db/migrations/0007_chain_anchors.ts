import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/** Anchors of the ledger's block ranges on an EVM chain (docs/chain.md, "Anchors"), one row per `Anchored` event. */
export function chainAnchors(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('chain_anchors')
        .addColumn('contract', 'text', (c) => c.notNull())
        .addColumn('from_block', t.bigint, (c) => c.notNull())
        .addColumn('to_block', t.bigint, (c) => c.notNull())
        .addColumn('chain_id', t.bigint, (c) => c.notNull())
        .addColumn('last_block_hash', 'text', (c) => c.notNull())
        .addColumn('root', 'text', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('evm_block', t.bigint, (c) => c.notNull())
        .addColumn('anchored_at', t.bigint, (c) => c.notNull())
        // The contract refuses overlaps, so (contract, from_block) is one event; a proof finds its range by it.
        .addPrimaryKeyConstraint('chain_anchors_pk', ['contract', 'from_block'])
        .execute();
    },
  };
}
