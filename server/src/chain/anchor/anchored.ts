/**
 * What the anchoring worker knows of the chain without loading an Ethereum library (ethers is
 * loaded only where anchoring is configured, by `anchor-evm.ts`).
 */

/** A range as anchored: hashes hex without prefix (as the ledger's), EVM values with. */
export interface AnchoredEvent {
  fromBlock: number;
  toBlock: number;
  lastBlockHash: string;
  root: string;
  txHash: string;
  evmBlock: number;
  gasUsed?: bigint;
}

/** The contract refused a range (not the next one): someone anchored it already. */
export class AnchorRefused extends Error {}
