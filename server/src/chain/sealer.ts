/**
 * The sealer: about once a second it claims the queued items, applies the points rules in order
 * (an item whose rule fails is marked failed and left out), and writes one block: number, previous
 * hash, RFC 6962 root over the transaction hashes, time and count, signed with the node key. All
 * of it is one database transaction, so a crash leaves the items queued and nothing half-sealed.
 * On PostgreSQL a transaction-scoped advisory lock keeps to one sealer across instances.
 */
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';
import { GENESIS_PREV_HASH, blockHash, merkleRoot, type BlockHeader } from '@kit/shared';
import { startLoop, type Loop } from '../jobs/loop';
import type { Executor, LedgerStore } from './ledger-store';
import type { PointsStore } from './points-store';
import type { NodeKey } from './node-key';
import { POINTS_TYPES, acceptedItem } from './actions';
import { applyPointsTx, touches, type Account, type CodeReader, type PointsTx } from './points-rules';

/** Most items in one block; more waiting makes the sealer go again at once. */
export const MAX_BLOCK_ITEMS = 50_000;

export interface SealResult {
  block?: number;
  confirmed: number;
  failed: number;
  /** More items were waiting than one block takes. */
  more: boolean;
  /** When each confirmed item had been accepted (Unix ms), for the seal-latency metric. */
  acceptedAt?: number[];
}

/** What the sealer loop reports about each block it writes. */
export type SealObserver = (durationMs: number, acceptedAt: readonly number[], failed: number) => void;

export class Sealer {
  constructor(
    private readonly ledger: LedgerStore,
    private readonly points: PointsStore,
    private readonly key: NodeKey,
    private readonly codes: CodeReader,
    private readonly clock: Clock,
    private readonly maxItems = MAX_BLOCK_ITEMS,
  ) {}

  private analyzed = { at: -Infinity, rows: 0, since: 0 };

  /** Seals what is queued into one block (or nothing, when another instance holds the lock). */
  async sealOnce(now = () => this.clock.now()): Promise<SealResult> {
    const result = await this.sealBlock(now);
    await this.keepStatistics(result.confirmed);
    return result;
  }

  /**
   * A ledger table that grows by thousands of rows a second outruns PostgreSQL's autovacuum
   * statistics (refreshed about once a minute), and with stale statistics the planner scans
   * instead of probing the key index. Refreshed here once a fifth more rows have been sealed
   * (at most every 5 s). A no-op on SQLite.
   */
  private async keepStatistics(sealed: number): Promise<void> {
    this.analyzed.since += sealed;
    const due = this.analyzed.since >= Math.max(5_000, this.analyzed.rows / 5) && performance.now() - this.analyzed.at >= 5_000;
    if (!due) return;
    this.analyzed = { at: performance.now(), rows: this.analyzed.rows + this.analyzed.since, since: 0 };
    await this.ledger.analyze();
  }

  private sealBlock(now: () => number): Promise<SealResult> {
    return this.ledger.db.transaction().execute(async (trx) => {
      if (!(await this.ledger.trySealLock(trx))) return { confirmed: 0, failed: 0, more: false };
      const last = await this.ledger.latestBlock(trx);
      const number = (last?.number ?? 0) + 1;
      const claimed = await this.ledger.claim(trx, this.maxItems);
      if (claimed.length === 0) return { confirmed: 0, failed: 0, more: false };
      claimed.sort((a, b) => a.seq - b.seq);

      const failures = await this.applyPoints(trx, claimed, now());
      if (failures.length) await this.ledger.markFailed(trx, failures);
      const failedSeqs = new Set(failures.map((f) => f.seq));
      const leaves = claimed.filter((c) => !failedSeqs.has(c.seq));
      const more = claimed.length >= this.maxItems;
      if (leaves.length === 0) return { confirmed: 0, failed: failures.length, more };

      const header: BlockHeader = {
        number,
        prevHash: last?.hash ?? GENESIS_PREV_HASH,
        merkleRoot: merkleRoot(leaves.map((l) => Buffer.from(l.tx_hash, 'hex'))).toString('hex'),
        // Block times never go backwards, even if the clock does.
        time: Math.max(now(), last?.time ?? 0),
        txCount: leaves.length,
      };
      const range = { number, first_seq: leaves[0].seq, last_seq: leaves[leaves.length - 1].seq };
      await this.ledger.insertBlock(trx, {
        ...range,
        prev_hash: header.prevHash,
        merkle_root: header.merkleRoot,
        time: header.time,
        tx_count: header.txCount,
        hash: blockHash(header),
        signature: this.key.signHeader(header),
        signer: this.key.publicKeyHex,
      });
      const confirmed = await this.ledger.confirmBlock(
        trx,
        range,
        leaves.map((l) => l.seq),
      );
      if (confirmed !== leaves.length) throw new Error(`block ${number}: confirmed ${confirmed} items but sealed ${leaves.length}`);
      await this.ledger.indexBlock(trx, range);
      return { block: number, confirmed, failed: failures.length, more, acceptedAt: leaves.map((l) => Number(l.created_at)) };
    });
  }

  /** Runs the points rules over the claimed points items in order; returns the ones that fail. */
  private async applyPoints(trx: Executor, claimed: Array<{ seq: number; app_id: string; type: string; created_at: number }>, now: number) {
    const rows = claimed.filter((c) => POINTS_TYPES.has(c.type));
    if (rows.length === 0) return [];
    const contents = await this.ledger.contents(
      trx,
      rows.map((r) => r.seq),
    );
    const txs: PointsTx[] = rows.map((r) => ({
      seq: r.seq,
      appId: r.app_id,
      acceptedAt: r.created_at,
      ...acceptedItem(r.type, JSON.parse(contents.get(r.seq)!).args),
    }));
    const want = { types: [] as Array<[string, string]>, accounts: [] as Account[], uuids: [] as string[] };
    for (const tx of txs) {
      const t = touches(tx, this.codes);
      want.types.push(...t.types);
      want.accounts.push(...t.accounts);
      want.uuids.push(...t.uuids);
    }
    const state = await this.points.load(trx, want);
    const failures: Array<{ seq: number; reason: string }> = [];
    for (const tx of txs) {
      const r = applyPointsTx(state, tx, this.codes);
      if (!r.ok) failures.push({ seq: tx.seq, reason: r.reason });
    }
    await this.points.save(trx, state, now);
    return failures;
  }
}

export function startSealer(sealer: Sealer, intervalMs: number, log: Logger, clock: Clock, observe?: SealObserver): Loop {
  return startLoop(
    'chain-sealer',
    intervalMs,
    async () => {
      const started = performance.now();
      const r = await sealer.sealOnce();
      if (r.block !== undefined || r.failed) observe?.(performance.now() - started, r.acceptedAt ?? [], r.failed);
      if (r.block !== undefined || r.failed) log.debug({ block: r.block, confirmed: r.confirmed, failed: r.failed }, 'chain block sealed');
      return r.more ? 'more' : r.block !== undefined || r.failed ? 'worked' : undefined;
    },
    log,
    clock,
  );
}
