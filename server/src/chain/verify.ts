/**
 * Re-verifies the whole ledger from the database (`kit chain verify`): block numbering and links,
 * header hashes, signatures by a trusted node key, every item's on-chain id and transaction hash,
 * every block's Merkle root and count, items outside any block, and finally the points state
 * replayed from the confirmed items against the stored balances, types and spent codes.
 * Stops at the first inconsistency.
 */
import { GENESIS_PREV_HASH, blockHash, merkleRoot, onChainId, txHash, verifyBlockSignature, type BlockHeader } from '@kit/shared';
import type { LedgerStore } from './ledger-store';
import type { PointsStore } from './points-store';
import { POINTS_TYPES, acceptedItem } from './actions';
import { PointsState, accountKey, applyPointsTx, typeKey, type CodeReader } from './points-rules';

export interface VerifyReport {
  ok: boolean;
  blocks: number;
  transactions: number;
  /** The first inconsistency found. */
  problem?: { block?: number; seq?: number; detail: string };
  /** Public keys that signed the blocks checked. */
  signers: string[];
}

export async function verifyLedger(
  ledger: LedgerStore,
  points: PointsStore,
  opts: { trustedKeys: string[]; codes: CodeReader; pageSize?: number },
): Promise<VerifyReport> {
  const db = ledger.db;
  const trusted = new Set(opts.trustedKeys.map((k) => k.toLowerCase()));
  const signers = new Set<string>();
  const state = new PointsState();
  let blocks = 0;
  let transactions = 0;
  let prevHash = GENESIS_PREV_HASH;
  let prevTime = 0;
  let expected = 1;
  const fail = (detail: string, where: { block?: number; seq?: number } = {}): VerifyReport => ({
    ok: false,
    blocks,
    transactions,
    problem: { ...where, detail },
    signers: [...signers],
  });

  // Blocks, then a consistent snapshot of what must agree with them; if the sealer added blocks
  // meanwhile, check those first and take the snapshot again.
  for (;;) {
    for (;;) {
      const page = await ledger.blocksFrom(db, expected, opts.pageSize ?? 100);
      if (page.length === 0) break;
      for (const b of page) {
        if (b.number !== expected) return fail(`block ${expected} is missing (next block found is ${b.number})`, { block: expected });
        const header: BlockHeader = { number: b.number, prevHash: b.prev_hash, merkleRoot: b.merkle_root, time: b.time, txCount: b.tx_count };
        if (b.prev_hash !== prevHash) return fail(`block ${b.number} does not link to the previous block's hash`, { block: b.number });
        if (b.time < prevTime) return fail(`block ${b.number} is older than the block before it`, { block: b.number });
        if (blockHash(header) !== b.hash) return fail(`block ${b.number}: the stored hash does not match its header`, { block: b.number });
        if (!trusted.has(b.signer.toLowerCase())) {
          return fail(`block ${b.number} is signed by key ${b.signer}, which is not trusted (pass --trust ${b.signer} if it is an earlier node key)`, {
            block: b.number,
          });
        }
        if (!verifyBlockSignature(header, b.signature, b.signer)) return fail(`block ${b.number}: the signature is invalid`, { block: b.number });
        signers.add(b.signer);

        const items = await ledger.blockItems(db, b);
        const leaves: Buffer[] = [];
        for (const it of items) {
          const where = { block: b.number, seq: it.seq };
          if (it.status !== 'confirmed') return fail(`item ${it.seq} is ${it.status} but assigned to block ${b.number}`, where);
          if (onChainId(it.content) !== it.chain_id) return fail(`item ${it.seq}: its content does not hash to its on-chain id`, where);
          if (txHash(it.app_id, it.content) !== it.tx_hash) return fail(`item ${it.seq}: its transaction does not hash to its chainTrxId`, where);
          let parsed: { type?: string; args?: Record<string, unknown> };
          try {
            parsed = JSON.parse(it.content);
          } catch {
            return fail(`item ${it.seq}: its content is not JSON`, where);
          }
          if (parsed.type !== it.type) return fail(`item ${it.seq}: its content says type ${parsed.type}, the row says ${it.type}`, where);
          if (POINTS_TYPES.has(it.type)) {
            const r = applyPointsTx(
              state,
              { seq: it.seq, appId: it.app_id, acceptedAt: it.created_at, ...acceptedItem(it.type, parsed.args ?? {}) },
              opts.codes,
            );
            if (!r.ok) return fail(`item ${it.seq}: replaying it fails (${r.reason})`, where);
          }
          leaves.push(Buffer.from(it.tx_hash, 'hex'));
        }
        if (leaves.length !== b.tx_count)
          return fail(`block ${b.number} records ${b.tx_count} transactions but ${leaves.length} items belong to it`, { block: b.number });
        if (merkleRoot(leaves).toString('hex') !== b.merkle_root)
          return fail(`block ${b.number}: the Merkle root does not match its transactions`, { block: b.number });
        blocks++;
        transactions += leaves.length;
        prevHash = b.hash;
        prevTime = b.time;
        expected++;
      }
    }

    const snapshot = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      // A snapshot that takes no write lock: the service keeps writing while it is read.
      .setAccessMode('read only')
      .execute(async (trx) => {
        if (((await ledger.latestBlock(trx))?.number ?? 0) >= expected) return null;
        return {
          stray: await ledger.strayCounts(trx),
          types: await points.allTypes(trx),
          balances: await points.allBalances(trx),
          spent: await points.allSpent(trx),
        };
      });
    if (!snapshot) continue;
    const { stray, types: storedTypes, balances: storedBalances, spent: storedSpent } = snapshot;
    if (stray.orphans) return fail(`${stray.orphans} confirmed item(s) belong to no block`);
    if (stray.halfClaimed) return fail(`${stray.halfClaimed} unconfirmed item(s) are assigned to a block`);
    if (stray.unindexed) return fail(`${stray.unindexed} confirmed item(s) are missing from the on-chain id index`);

    // The points tables must be what the confirmed items produce.
    if (storedTypes.length !== state.types.size || storedTypes.some((t) => !state.types.has(typeKey(t.token_app_id, t.token_id)))) {
      return fail('the stored point types differ from those the ledger creates');
    }
    const replayed = new Map([...state.balances].filter(([, v]) => v.units !== 0).map(([k, v]) => [k, v.units]));
    for (const row of storedBalances) {
      const k = accountKey({ tokenAppId: row.token_app_id, tokenId: row.token_id, userAppId: row.user_app_id, userId: row.user_id });
      const want = replayed.get(k) ?? 0;
      if (want !== row.balance) return fail(`balance of ${k} is ${row.balance} units but the ledger gives ${want}`);
      replayed.delete(k);
    }
    if (replayed.size) return fail(`balance of ${[...replayed.keys()][0]} is missing from the stored balances`);
    if (storedSpent.length !== state.spent.size || storedSpent.some((s) => !state.spent.has(s.uuid))) {
      return fail('the stored spent deduction codes differ from those the ledger spends');
    }
    return { ok: true, blocks, transactions, signers: [...signers] };
  }
}
