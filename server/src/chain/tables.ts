/** Table types of the chain ledger and the trusted points derived from it (migration 0003_chain). */
import type { Generated } from 'kysely';
import type { AnchorLeafRule } from '@kit/shared';

export type ChainItemStatus = 'pending' | 'confirmed' | 'failed';

/** One accepted item: queued (`pending`) until a block confirms it or a rule fails it. */
export interface ChainItemsTable {
  /** Queue order; also the order of transactions inside a block. */
  seq: Generated<number>;
  app_id: string;
  type: string;
  /** The caller's `args.id`; (app_id, type, local_id) is the de-duplication key. */
  local_id: string;
  /** On-chain id: hex SHA-256 of `content`. */
  chain_id: string;
  /** Transaction hash: RFC 6962 leaf hash of txLeaf(app_id, content), hex. */
  tx_hash: string;
  /** Canonical JSON of the item as it stands on the ledger (donations: encrypted). */
  content: string;
  status: ChainItemStatus;
  /** Set when a sealer claims the item and kept when it is confirmed. */
  block_num: number | null;
  fail_reason: string | null;
  /** Acceptance time (Unix ms). */
  created_at: number;
}

/** Confirmed items by the first 16 hex characters of their on-chain id (filled by the sealer). */
export interface ChainIdIndexTable {
  chain_prefix: string;
  seq: number;
}

export interface ChainBlocksTable {
  number: number;
  prev_hash: string;
  merkle_root: string;
  time: number;
  tx_count: number;
  /** Hex SHA-256 of the canonical header. */
  hash: string;
  /** Hex ed25519 signature over the canonical header. */
  signature: string;
  /** Hex raw public key of the node that signed. */
  signer: string;
  /** Lowest and highest seq of its items (not signed: only where to look for them). */
  first_seq: number;
  last_seq: number;
}

export interface PointTypesTable {
  token_app_id: string;
  token_id: string;
  name: string;
  created_at: number;
}

/** Balances in 1/100000 of a point. */
export interface PointBalancesTable {
  token_app_id: string;
  token_id: string;
  user_app_id: string;
  user_id: string;
  balance: number;
  updated_at: number;
}

/** Deduction-code uuids already spent by a confirmed chainPay. */
export interface PointSpentCodesTable {
  uuid: string;
  item_seq: number;
  spent_at: number;
}

/** One anchored range of blocks (migration 0007_chain_anchors): the contract's `Anchored` event as recorded here. */
export interface ChainAnchorsTable {
  /** Lower-case `0x` address. */
  contract: string;
  from_block: number;
  to_block: number;
  chain_id: number;
  /** Hex, no prefix (as the ledger's own hashes). */
  last_block_hash: string;
  root: string;
  /** `0x`-prefixed. */
  tx_hash: string;
  evm_block: number;
  /** When it was recorded here (Unix ms). */
  anchored_at: number;
  /** How the tree's leaves were made from the block hashes (migration 0010: rows recorded before it are `raw`). */
  leaf_rule: AnchorLeafRule;
}

/** The anchor transaction in flight for a contract, written before it is sent (migration 0011). */
export interface ChainAnchorPendingTable {
  contract: string;
  from_block: number;
  to_block: number;
  /** Lower-case `0x` address of the sending key (a row of another key is not this anchorer's to resume). */
  sender: string;
  nonce: number;
  /** `0x`-prefixed. */
  tx_hash: string;
  /** The signed transaction (`0x` hex), sent again as it is when the EVM node loses it. */
  raw_tx: string;
  /** When it was written down, just before it was first sent (Unix ms). */
  sent_at: number;
}

export interface ChainTables {
  chain_items: ChainItemsTable;
  chain_blocks: ChainBlocksTable;
  chain_id_index: ChainIdIndexTable;
  point_types: PointTypesTable;
  point_balances: PointBalancesTable;
  point_spent_codes: PointSpentCodesTable;
  chain_anchors: ChainAnchorsTable;
  chain_anchor_pending: ChainAnchorPendingTable;
}
