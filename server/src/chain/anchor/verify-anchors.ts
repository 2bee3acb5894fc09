/**
 * `kit chain verify --anchors`: every recorded anchor against the ledger as stored now (the range's
 * block hashes give the root; no gap, no overlap) and against the chain (the transaction's receipt
 * carries the contract's `Anchored` event with that range and root), and the contract holds no
 * range this database has not recorded. Stops at the first mismatch.
 */
import { anchorRoot, verifyAnchorTransaction } from '@kit/shared';
import type { AnchorStore } from './anchor-store';
import type { AnchorChain } from './anchor-evm';

export interface AnchorReport {
  ok: boolean;
  contract: string;
  chainId: number;
  anchors: number;
  /** The last ledger block anchored (recorded here). */
  lastAnchored: number;
  /** The last ledger block the contract holds. */
  contractHolds: number;
  problem?: { fromBlock?: number; toBlock?: number; detail: string };
}

export async function verifyAnchors(store: AnchorStore, chain: AnchorChain, rpcUrl: string): Promise<AnchorReport> {
  const contract = chain.address;
  const rows = await store.all(contract);
  const report: AnchorReport = { ok: true, contract, chainId: chain.chainId, anchors: 0, lastAnchored: 0, contractHolds: await chain.lastToBlock() };
  const fail = (detail: string, where: { fromBlock?: number; toBlock?: number } = {}): AnchorReport => ({
    ...report,
    ok: false,
    problem: { ...where, detail },
  });
  let expected = 1;
  for (const a of rows) {
    const where = { fromBlock: a.from_block, toBlock: a.to_block };
    if (a.from_block !== expected) return fail(`anchored ranges are not consecutive: expected one from block ${expected}`, where);
    if (a.chain_id !== chain.chainId) return fail(`anchor recorded on chain ${a.chain_id}, the RPC serves chain ${chain.chainId}`, where);
    const blocks = await store.blockHashes(a.from_block, a.to_block);
    if (blocks.length !== a.to_block - a.from_block + 1) return fail('the ledger lacks blocks of the anchored range', where);
    // Each anchor by the leaf rule it was made with (rows recorded before the rule was named: `raw`).
    const root = anchorRoot(
      blocks.map((b) => b.hash),
      a.leaf_rule,
    );
    if (root !== a.root || blocks[blocks.length - 1].hash !== a.last_block_hash) {
      return fail('the block hashes stored now do not give the anchored root: the ledger was changed after anchoring', where);
    }
    const onChain = await verifyAnchorTransaction(
      {
        chainId: a.chain_id,
        contract: a.contract,
        txHash: a.tx_hash,
        evmBlockNumber: a.evm_block,
        fromBlock: a.from_block,
        toBlock: a.to_block,
        root: a.root,
        lastBlockHash: a.last_block_hash,
      },
      { rpcUrl },
    );
    if (!onChain.ok) return fail(onChain.reason, where);
    report.anchors++;
    report.lastAnchored = a.to_block;
    expected = a.to_block + 1;
  }
  if (report.contractHolds < report.lastAnchored)
    return fail(`the contract holds blocks up to ${report.contractHolds} only, ${report.lastAnchored} are recorded`);
  return report;
}
