import { sql, type Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/** The chain ledger (items queue, blocks) and the trusted-points state derived from it. */
export function chain(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('chain_items')
        .addColumn('seq', t.serial, (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('local_id', 'text', (c) => c.notNull())
        .addColumn('chain_id', 'text', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('block_num', t.bigint)
        .addColumn('fail_reason', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('chain_items_key').unique().on('chain_items').columns(['app_id', 'type', 'local_id']).execute();
      // The sealer's queue: only pending rows, in order.
      await db.schema.createIndex('chain_items_queue').on('chain_items').column('seq').where(sql.ref('status'), '=', sql.lit('pending')).execute();
      // Lookup by on-chain id (c2i, proofs). Hash keys land on random index pages, which costs a
      // page write per row when indexed per upload call; the sealer fills this index once per block
      // instead, in key order, and queued items are found through the queue index.
      let ids = db.schema
        .createTable('chain_id_index')
        .addColumn('chain_prefix', 'text', (c) => c.notNull())
        .addColumn('seq', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('chain_id_index_pk', ['chain_prefix', 'seq']);
      if (dialect === 'sqlite') ids = ids.modifyEnd(sql`without rowid`);
      await ids.execute();
      await db.schema
        .createTable('chain_blocks')
        .addColumn('number', t.bigint, (c) => c.primaryKey())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('merkle_root', 'text', (c) => c.notNull())
        .addColumn('time', t.bigint, (c) => c.notNull())
        .addColumn('tx_count', 'integer', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.notNull())
        .addColumn('signer', 'text', (c) => c.notNull())
        // The seq range its items lie in: blocks find their items by primary key, so chain_items
        // needs no index on block_num (one less index to maintain per accepted item).
        .addColumn('first_seq', t.bigint, (c) => c.notNull())
        .addColumn('last_seq', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('point_types')
        .addColumn('token_app_id', 'text', (c) => c.notNull())
        .addColumn('token_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('point_types_pk', ['token_app_id', 'token_id'])
        .execute();
      await db.schema
        .createTable('point_balances')
        .addColumn('token_app_id', 'text', (c) => c.notNull())
        .addColumn('token_id', 'text', (c) => c.notNull())
        .addColumn('user_app_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('balance', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('point_balances_pk', ['token_app_id', 'token_id', 'user_app_id', 'user_id'])
        .execute();
      await db.schema
        .createTable('point_spent_codes')
        .addColumn('uuid', 'text', (c) => c.primaryKey())
        .addColumn('item_seq', t.bigint, (c) => c.notNull())
        .addColumn('spent_at', t.bigint, (c) => c.notNull())
        .execute();
    },
  };
}
