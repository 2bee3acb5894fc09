/**
 * SQL of the anchors: the ranges recorded per contract, the transaction in flight, and the block
 * hashes an anchored root is built from.
 */
import { sql } from 'kysely';
import type { LedgerStore } from '../ledger-store';
import type { ChainAnchorPendingTable, ChainAnchorsTable } from '../tables';

export class AnchorStore {
  constructor(private readonly ledger: LedgerStore) {}

  private get db() {
    return this.ledger.db;
  }

  /** The highest anchored range recorded for a contract. */
  last(contract: string): Promise<ChainAnchorsTable | undefined> {
    return this.db.selectFrom('chain_anchors').selectAll().where('contract', '=', contract).orderBy('from_block', 'desc').limit(1).executeTakeFirst();
  }

  /** Records an anchored range; recording the same event twice changes nothing. */
  async record(row: ChainAnchorsTable): Promise<void> {
    await this.db
      .insertInto('chain_anchors')
      .values(row)
      .onConflict((oc) => oc.columns(['contract', 'from_block']).doNothing())
      .execute();
  }

  /** The anchor transaction in flight for a contract (written before it was sent). */
  pending(contract: string): Promise<ChainAnchorPendingTable | undefined> {
    return this.db.selectFrom('chain_anchor_pending').selectAll().where('contract', '=', contract).executeTakeFirst();
  }

  /** Writes down the transaction about to be sent for a contract, replacing the one before. */
  async setPending(row: ChainAnchorPendingTable): Promise<void> {
    await this.db
      .insertInto('chain_anchor_pending')
      .values(row)
      .onConflict((oc) =>
        oc.column('contract').doUpdateSet({
          from_block: row.from_block,
          to_block: row.to_block,
          sender: row.sender,
          nonce: row.nonce,
          tx_hash: row.tx_hash,
          raw_tx: row.raw_tx,
          sent_at: row.sent_at,
        }),
      )
      .execute();
  }

  /** Forgets the transaction in flight (mined, refused, or no longer to be waited for). */
  async clearPending(contract: string): Promise<void> {
    await this.db.deleteFrom('chain_anchor_pending').where('contract', '=', contract).execute();
  }

  /** Forgets the ranges beyond `toBlock` (the chain no longer holds them: a reorganisation). */
  async forgetAfter(contract: string, toBlock: number): Promise<number> {
    const res = await this.db.deleteFrom('chain_anchors').where('contract', '=', contract).where('to_block', '>', toBlock).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** The range holding ledger block `number`: of `contract` if given, else the earliest recorded anchor of any contract. */
  async covering(number: number, contract?: string): Promise<ChainAnchorsTable | undefined> {
    return this.db
      .selectFrom('chain_anchors')
      .selectAll()
      .where('from_block', '<=', number)
      .where('to_block', '>=', number)
      .$if(contract !== undefined, (q) => q.where('contract', '=', contract!))
      .orderBy('anchored_at')
      .limit(1)
      .executeTakeFirst();
  }

  /** Every range of a contract (or of all), in order, for `chain verify --anchors`. */
  all(contract?: string): Promise<ChainAnchorsTable[]> {
    return this.db
      .selectFrom('chain_anchors')
      .selectAll()
      .$if(contract !== undefined, (q) => q.where('contract', '=', contract!))
      .orderBy('contract')
      .orderBy('from_block')
      .execute();
  }

  /** Block hashes of `from..to` in order (the leaves of an anchored tree). */
  async blockHashes(from: number, to: number): Promise<Array<{ number: number; hash: string; time: number }>> {
    return this.db
      .selectFrom('chain_blocks')
      .select(['number', 'hash', 'time'])
      .where('number', '>=', from)
      .where('number', '<=', to)
      .orderBy('number')
      .execute();
  }

  /** The newest sealed block, and the time of the oldest one after `anchoredTo` (what the lag metric measures). */
  async progress(anchoredTo: number): Promise<{ latest: number; oldestUnanchoredTime?: number }> {
    const { rows } = await sql<{ latest: number | string | null; oldest: number | string | null }>`select
        (select max(number) from chain_blocks) as latest,
        (select time from chain_blocks where number = ${anchoredTo + 1}) as oldest`.execute(this.db);
    const r = rows[0];
    return { latest: Number(r?.latest ?? 0), oldestUnanchoredTime: r?.oldest == null ? undefined : Number(r.oldest) };
  }
}
