/** The `anchor` section of a proof: the range holding the block, and the block hash's audit path in the range's tree. */
import { anchorLeaf, auditPath, type ChainAnchor } from '@kit/shared';
import type { AnchorStore } from './anchor-store';

export class AnchorProofs {
  /** `contract`: the configured anchor contract, preferred when a block was anchored on several. */
  constructor(
    private readonly store: AnchorStore,
    private readonly contract?: string,
  ) {}

  async forBlock(number: number): Promise<ChainAnchor | undefined> {
    const row = (this.contract ? await this.store.covering(number, this.contract.toLowerCase()) : undefined) ?? (await this.store.covering(number));
    if (!row) return undefined;
    const blocks = await this.store.blockHashes(row.from_block, row.to_block);
    const index = number - row.from_block;
    if (blocks.length !== row.to_block - row.from_block + 1 || blocks[index]?.number !== number) {
      throw new Error(`anchored range ${row.from_block}..${row.to_block} has blocks missing from the ledger`);
    }
    return {
      chainId: row.chain_id,
      contract: row.contract,
      txHash: row.tx_hash,
      evmBlockNumber: row.evm_block,
      fromBlock: row.from_block,
      toBlock: row.to_block,
      root: `0x${row.root}`,
      // Named on every proof: anchors recorded before the RFC 6962 leaf stay verifiable by their own rule.
      leafRule: row.leaf_rule,
      leafIndex: index,
      // From the blocks as stored now: if one was changed after anchoring, the path no longer leads to the anchored root.
      auditPath: auditPath(
        blocks.map((b) => anchorLeaf(b.hash, row.leaf_rule)),
        index,
      ).map((h) => h.toString('hex')),
    };
  }
}
