import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect';

/**
 * Each anchor names how its tree's leaves were made from the block hashes (docs/chain.md, "What is
 * anchored"): `rfc6962` (`SHA-256(0x00 ‖ blockHash)`) for anchors made from now on, `raw` (the block
 * hash itself) for the rows already recorded, which were all made that way and stay verifiable by it.
 */
export function chainAnchorLeafRule(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      // The default is what every row recorded before this migration was made with; new rows always name their rule.
      await db.schema
        .alterTable('chain_anchors')
        .addColumn('leaf_rule', 'text', (c) => c.notNull().defaultTo('raw'))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('chain_anchors').dropColumn('leaf_rule').execute();
    },
  };
}
