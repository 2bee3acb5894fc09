/** SQL of the chain ledger: the item queue, blocks and lookups. No rules here. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { Dialect } from '../db/dialect';
import type { ChainBlocksTable, ChainItemsTable } from './tables';

export type Executor = Kysely<Database> | Transaction<Database>;
export type NewItem = Omit<ChainItemsTable, 'seq' | 'status' | 'block_num' | 'fail_reason'>;
export type BlockRange = Pick<ChainBlocksTable, 'number' | 'first_seq' | 'last_seq'>;

/** Lookups and inserts are chunked to stay far below every driver's parameter limit. */
const CHUNK = 500;
const itemKey = (type: string, localId: string) => `${type}\u0000${localId}`;
/** Hex characters of an on-chain id kept in the id index (64 bits; the full id is compared on the row). */
const CHAIN_PREFIX_LENGTH = 16;
const chainPrefix = (chainId: string) => chainId.slice(0, CHAIN_PREFIX_LENGTH);

export class LedgerStore {
  constructor(
    readonly db: Kysely<Database>,
    readonly dialect: Dialect,
  ) {}

  /**
   * Inserts the items whose (app, type, local id) is new and returns the keys it inserted. An
   * existing key is left alone (the caller decides between duplicate, conflict and resubmission).
   */
  async insertNew(on: Executor, rows: NewItem[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (let i = 0; i < rows.length; i += 100) {
      const res = await on
        .insertInto('chain_items')
        .values(rows.slice(i, i + 100).map((r) => ({ ...r, status: 'pending' as const, block_num: null, fail_reason: null })))
        .onConflict((oc) => oc.columns(['app_id', 'type', 'local_id']).doNothing())
        .returning(['type', 'local_id'])
        .execute();
      for (const r of res) inserted.add(itemKey(r.type, r.local_id));
    }
    return inserted;
  }

  async findByKeys(on: Executor, appId: string, keys: Array<{ type: string; local_id: string }>) {
    const byType = new Map<string, Set<string>>();
    for (const k of keys) {
      if (!byType.has(k.type)) byType.set(k.type, new Set());
      byType.get(k.type)!.add(k.local_id);
    }
    const rows: Array<{ seq: number; type: string; local_id: string; chain_id: string; status: ChainItemsTable['status'] }> = [];
    for (const [type, set] of byType) {
      const ids = [...set];
      for (let i = 0; i < ids.length; i += CHUNK) {
        // All three key columns, so that the unique index answers it.
        rows.push(
          ...(await on
            .selectFrom('chain_items')
            .select(['seq', 'type', 'local_id', 'chain_id', 'status'])
            .where('app_id', '=', appId)
            .where('type', '=', type)
            .where('local_id', 'in', ids.slice(i, i + CHUNK))
            .execute()),
        );
      }
    }
    return new Map(rows.map((r) => [itemKey(r.type, r.local_id), r]));
  }

  async deleteFailed(on: Executor, seqs: number[]): Promise<void> {
    if (seqs.length) await on.deleteFrom('chain_items').where('seq', 'in', seqs).where('status', '=', 'failed').execute();
  }

  /** i2c: rows of one app and type by local id. */
  byLocalIds(appId: string, type: string, ids: string[]) {
    return this.db
      .selectFrom('chain_items')
      .select(['local_id', 'chain_id', 'tx_hash', 'status', 'block_num'])
      .where('app_id', '=', appId)
      .where('type', '=', type)
      .where('local_id', 'in', ids)
      .execute();
  }

  /**
   * Items by on-chain id: confirmed ones through the id index the sealer fills, queued ones through
   * the queue index (failed ones are not found). Optionally limited to one app and one type.
   */
  async byChainIds(chainIds: string[], filter: { appId?: string; type?: string } = {}) {
    const ids = [...new Set(chainIds)].filter((id) => /^[0-9a-f]{64}$/.test(id));
    if (ids.length === 0) return [];
    // App and type are filtered here rather than in SQL, so that the planner drives the join from
    // the id index (an (app, type) prefix would make SQLite scan all of the app's items instead).
    const confirmed = (
      await this.db
        .selectFrom('chain_id_index as x')
        .innerJoin('chain_items as i', 'i.seq', 'x.seq')
        .select(['i.seq', 'i.app_id', 'i.type', 'i.local_id', 'i.chain_id', 'i.tx_hash', 'i.content', 'i.status', 'i.block_num'])
        .where('x.chain_prefix', 'in', ids.map(chainPrefix))
        .where('i.chain_id', 'in', ids)
        .execute()
    ).filter((r) => (filter.appId === undefined || r.app_id === filter.appId) && (filter.type === undefined || r.type === filter.type));
    const found = new Set(confirmed.map((r) => r.chain_id));
    const rest = ids.filter((id) => !found.has(id));
    if (rest.length === 0) return confirmed;
    const conds = [sql`status = 'pending'`, sql`chain_id in (${sql.join(rest)})`];
    if (filter.appId !== undefined) conds.push(sql`app_id = ${filter.appId}`);
    if (filter.type !== undefined) conds.push(sql`type = ${filter.type}`);
    // Only the queue is scanned (SQLite's planner would otherwise prefer the (app, type) prefix).
    const from = this.dialect === 'sqlite' ? sql`chain_items indexed by chain_items_queue` : sql`chain_items`;
    const { rows } = await sql<
      (typeof confirmed)[number]
    >`select seq, app_id, type, local_id, chain_id, tx_hash, content, status, block_num from ${from} where ${sql.join(conds, sql` and `)}`.execute(this.db);
    return [...confirmed, ...rows];
  }

  /** Indexes the on-chain ids of the items sealed into a block, in key order. */
  indexBlock(on: Executor, block: BlockRange) {
    return sql`insert into chain_id_index (chain_prefix, seq) select substr(chain_id, 1, ${sql.lit(CHAIN_PREFIX_LENGTH)}), seq from chain_items
      where seq >= ${block.first_seq} and seq <= ${block.last_seq} and block_num = ${block.number} and status = 'confirmed' order by 1`.execute(on);
  }

  /** Pending creates of point types by an app (acceptance checks of issue/transfer before sealing). */
  pendingContents(appId: string, type: string) {
    return this.db
      .selectFrom('chain_items')
      .select('content')
      .where('app_id', '=', appId)
      .where('type', '=', type)
      .where('status', '=', 'pending')
      .limit(1000)
      .execute();
  }

  /** Transaction hashes of a block in order (the leaves of its Merkle tree). */
  blockLeaves(on: Executor, block: BlockRange) {
    return on
      .selectFrom('chain_items')
      .select(['seq', 'tx_hash'])
      .where('seq', '>=', block.first_seq)
      .where('seq', '<=', block.last_seq)
      .where('block_num', '=', block.number)
      .where('status', '=', 'confirmed')
      .orderBy('seq')
      .execute();
  }

  /** Everything `chain verify` re-hashes for one block. */
  blockItems(on: Executor, block: BlockRange) {
    return on
      .selectFrom('chain_items')
      .select(['seq', 'app_id', 'type', 'local_id', 'chain_id', 'tx_hash', 'content', 'status', 'created_at'])
      .where('seq', '>=', block.first_seq)
      .where('seq', '<=', block.last_seq)
      .where('block_num', '=', block.number)
      .orderBy('seq')
      .execute();
  }

  block(on: Executor, number: number): Promise<ChainBlocksTable | undefined> {
    return on.selectFrom('chain_blocks').selectAll().where('number', '=', number).executeTakeFirst();
  }

  latestBlock(on: Executor): Promise<ChainBlocksTable | undefined> {
    return on.selectFrom('chain_blocks').selectAll().orderBy('number', 'desc').limit(1).executeTakeFirst();
  }

  blocksFrom(on: Executor, from: number, limit: number) {
    return on.selectFrom('chain_blocks').selectAll().where('number', '>=', from).orderBy('number').limit(limit).execute();
  }

  /**
   * The oldest `limit` queued items, for the next block. On PostgreSQL they are locked until the
   * sealing transaction ends (rows locked by anyone else are skipped); on SQLite the sealing
   * transaction holds the only write lock.
   */
  async claim(on: Executor, limit: number) {
    let q = on.selectFrom('chain_items').select(['seq', 'app_id', 'type', 'tx_hash', 'created_at']).where('status', '=', 'pending').orderBy('seq').limit(limit);
    if (this.dialect === 'postgres') q = q.forUpdate().skipLocked();
    return q.execute();
  }

  async contents(on: Executor, seqs: number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    for (let i = 0; i < seqs.length; i += CHUNK) {
      const rows = await on
        .selectFrom('chain_items')
        .select(['seq', 'content'])
        .where('seq', 'in', seqs.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) out.set(r.seq, r.content);
    }
    return out;
  }

  async markFailed(on: Executor, failures: Array<{ seq: number; reason: string }>): Promise<void> {
    for (const f of failures) {
      await on.updateTable('chain_items').set({ status: 'failed', block_num: null, fail_reason: f.reason }).where('seq', '=', f.seq).execute();
    }
  }

  insertBlock(on: Executor, row: ChainBlocksTable): Promise<unknown> {
    return on.insertInto('chain_blocks').values(row).execute();
  }

  /**
   * Confirms a block's items (one update per item). SQLite: every queued item in the block's seq
   * range was claimed (one writer, oldest first) and the failed ones are already marked, so the
   * range says it. PostgreSQL: items commit out of seq order, so the claimed seqs are listed.
   */
  async confirmBlock(on: Executor, block: BlockRange, seqs: number[]): Promise<number> {
    const res = await on
      .updateTable('chain_items')
      .set({ status: 'confirmed', block_num: block.number })
      .where('seq', '>=', block.first_seq)
      .where('seq', '<=', block.last_seq)
      .$if(this.dialect === 'postgres', (q) => q.where(sql<boolean>`seq = any(${seqs}::bigint[])`))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** PostgreSQL: fresh planner statistics for tables that grow by thousands of rows a second. */
  /** Items waiting for a block (the queue's partial index keeps this cheap). */
  async queueDepth(): Promise<number> {
    const row = await this.db
      .selectFrom('chain_items')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async analyze(): Promise<void> {
    if (this.dialect === 'postgres') await sql`analyze chain_items, chain_id_index`.execute(this.db);
  }

  /** PostgreSQL: one sealer at a time across instances, for the length of the caller's transaction. */
  async trySealLock(on: Executor): Promise<boolean> {
    if (this.dialect !== 'postgres') return true;
    const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtext(current_schema() || ':chain-seal')) as ok`.execute(on);
    return rows[0]?.ok === true;
  }

  /** Items that contradict the blocks: confirmed outside any block, unconfirmed inside one, or not indexed. */
  async strayCounts(on: Executor) {
    const row = await on
      .selectFrom('chain_items as i')
      .leftJoin('chain_blocks as b', (j) => j.onRef('b.number', '=', 'i.block_num').onRef('i.seq', '>=', 'b.first_seq').onRef('i.seq', '<=', 'b.last_seq'))
      .select([
        sql<number>`sum(case when i.status = 'confirmed' and b.number is null then 1 else 0 end)`.as('orphans'),
        sql<number>`sum(case when i.status <> 'confirmed' and i.block_num is not null then 1 else 0 end)`.as('half_claimed'),
        sql<number>`sum(case when i.status = 'confirmed' and not exists (select 1 from chain_id_index x where x.seq = i.seq and x.chain_prefix = substr(i.chain_id, 1, ${sql.lit(CHAIN_PREFIX_LENGTH)})) then 1 else 0 end)`.as(
          'unindexed',
        ),
      ])
      .executeTakeFirst();
    return { orphans: Number(row?.orphans ?? 0), halfClaimed: Number(row?.half_claimed ?? 0), unindexed: Number(row?.unindexed ?? 0) };
  }
}
