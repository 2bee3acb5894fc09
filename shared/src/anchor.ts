/**
 * Checking a proof's anchor on an EVM chain (docs/chain.md, "Anchors"): the ledger's block hashes
 * are anchored in ranges; the anchored root is the RFC 6962 tree hash whose leaves are the range's
 * block hashes (leaf `SHA-256(0x00 ‖ blockHash)`; anchors recorded before that rule name `raw`, the
 * block hash itself as the leaf), and the contract's `Anchored` event in the receipt of the anchoring
 * transaction carries it.
 *
 * Deliberately without an Ethereum library: two JSON-RPC calls through `fetch`, the event topic as
 * a constant and the event's 32-byte ABI words compared by hand. What it trusts is the RPC node it
 * asks (use one you run or trust) and, optionally, the node key you pin.
 */
import { leafHash, merkleRoot, rootFromAuditPath, verifyChainProof, type ChainProof, type ProofCheck } from './merkle';
import type { AnchorLeafRule, ProofResponse } from './api/chain';

/** keccak256("Anchored(uint64,uint64,bytes32,bytes32)"): topic 0 of the contract's one event. */
export const ANCHORED_EVENT_TOPIC = '0x047ae1cdca30d791d3ef89967fc37910d19a0e215f82bda8c844c90bc35ed3d5';

/** What a proof without `leafRule` was made with (servers that did not name the rule used the raw leaf). */
export const UNNAMED_ANCHOR_LEAF_RULE: AnchorLeafRule = 'raw';

/**
 * The leaf of block hash `blockHashHex` (hex, no prefix) in an anchored tree. `rfc6962`: the RFC 6962
 * leaf hash `SHA-256(0x00 ‖ blockHash bytes)`, as the block's own transaction tree (every anchor made
 * now). `raw`: the block hash itself (anchors recorded before the rule was named; a one-block range's
 * root was then the block hash). Either is sound for a block hash, which is the SHA-256 of a header
 * text starting with `{`: it can be neither a `0x00` leaf nor a `0x01` node of another tree.
 */
export function anchorLeaf(blockHashHex: string, rule: AnchorLeafRule): Buffer {
  const hash = Buffer.from(blockHashHex.replace(/^0x/i, ''), 'hex');
  return rule === 'rfc6962' ? leafHash(hash) : hash;
}

/** The anchored root (hex, no prefix) over the block hashes of a range, in order. */
export function anchorRoot(blockHashesHex: readonly string[], rule: AnchorLeafRule): string {
  return merkleRoot(blockHashesHex.map((h) => anchorLeaf(h, rule))).toString('hex');
}

/** Where a block's hash was anchored, and the proof that it is in the anchored range. */
export interface ChainAnchor {
  /** EIP-155 chain id of the EVM chain. */
  chainId: number;
  /** The anchor contract, `0x`-prefixed. */
  contract: string;
  /** The anchoring transaction, `0x`-prefixed. */
  txHash: string;
  /** The EVM block that holds the transaction. */
  evmBlockNumber: number;
  /** The anchored range of ledger blocks (inclusive). */
  fromBlock: number;
  toBlock: number;
  /** RFC 6962 root over the block hashes of `fromBlock..toBlock`, `0x`-prefixed. */
  root: string;
  /** How the leaves are made from the block hashes; absent (proofs of servers that did not name it): `raw`. */
  leafRule?: AnchorLeafRule;
  /** Position of this proof's block in the range: `block.number - fromBlock`. */
  leafIndex: number;
  /** Sibling hashes (hex, no prefix, like the ledger's own audit paths) from the block hash upwards. */
  auditPath: string[];
}

export interface AnchoredProof extends ChainProof {
  anchor?: ChainAnchor;
}

export interface AnchorCheckOptions {
  /** An Ethereum JSON-RPC endpoint of the chain the anchor names. */
  rpcUrl: string;
  /** The node key you trust (hex); without it the key named in the proof is used. */
  trustedNodeKeyHex?: string;
  /** Time limit of each RPC call (default 10 s). */
  timeoutMs?: number;
}

/** A 32-byte ABI word as 64 lower-case hex characters (no prefix). */
const word = (hex: string): string => hex.replace(/^0x/i, '').toLowerCase().padStart(64, '0');
const uintWord = (n: number): string => word(BigInt(n).toString(16));
const hexToNumber = (hex: unknown): number => (typeof hex === 'string' && /^0x[0-9a-f]+$/i.test(hex) ? Number(BigInt(hex)) : NaN);

async function rpc(url: string, method: string, params: unknown[], timeoutMs: number): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`);
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
  return body.result;
}

interface Receipt {
  status?: string;
  blockNumber?: string;
  blockHash?: string;
  logs?: Array<{ address?: string; topics?: string[]; data?: string; removed?: boolean }>;
}

/**
 * Checks a proof end to end: the item is in its signed block (`verifyChainProof`), the block hash
 * is leaf `leafIndex` of the anchored range's tree, and the transaction `txHash` succeeded on the
 * chain `chainId`, in the canonical block `evmBlockNumber`, with the contract's `Anchored(fromBlock,
 * toBlock, lastBlockHash, root)` event for exactly that range and root. RPC failures are answered
 * as `{ok: false}` with the reason (the anchor could not be checked).
 */
export async function verifyAnchoredProof(proof: AnchoredProof, opts: AnchorCheckOptions): Promise<ProofCheck> {
  const ledger = verifyChainProof(proof, opts.trustedNodeKeyHex);
  if (!ledger.ok) return ledger;
  const a = proof.anchor;
  if (!a) return { ok: false, reason: 'the proof carries no anchor (its block is not anchored yet)' };
  const size = a.toBlock - a.fromBlock + 1;
  if (!Number.isInteger(size) || size < 1) return { ok: false, reason: 'the anchored range is empty' };
  if (proof.block.number < a.fromBlock || proof.block.number > a.toBlock) return { ok: false, reason: 'the block is outside the anchored range' };
  if (a.leafIndex !== proof.block.number - a.fromBlock) return { ok: false, reason: 'the anchor leaf index is not the block position in the range' };
  const root = rootFromAuditPath(
    anchorLeaf(proof.blockHash, a.leafRule ?? UNNAMED_ANCHOR_LEAF_RULE),
    a.leafIndex,
    size,
    a.auditPath.map((h) => Buffer.from(h, 'hex')),
  );
  if (!root || word(root.toString('hex')) !== word(a.root)) return { ok: false, reason: 'the block hash does not lead to the anchored root' };

  return verifyAnchorTransaction(
    { ...a, lastBlockHash: proof.block.number === a.toBlock ? proof.blockHash : undefined },
    { rpcUrl: opts.rpcUrl, timeoutMs: opts.timeoutMs },
  );
}

/** What the chain must show for one anchored range. */
export interface AnchorEventClaim {
  chainId: number;
  contract: string;
  txHash: string;
  evmBlockNumber: number;
  fromBlock: number;
  toBlock: number;
  root: string;
  /** The hash of block `toBlock`, when the checker knows it. */
  lastBlockHash?: string;
}

/**
 * Checks on the chain that transaction `txHash` succeeded on chain `chainId`, in the canonical block
 * `evmBlockNumber`, and emitted the contract's `Anchored(fromBlock, toBlock, lastBlockHash, root)`.
 */
export async function verifyAnchorTransaction(a: AnchorEventClaim, opts: { rpcUrl: string; timeoutMs?: number }): Promise<ProofCheck> {
  const timeout = opts.timeoutMs ?? 10_000;
  try {
    const chainId = hexToNumber(await rpc(opts.rpcUrl, 'eth_chainId', [], timeout));
    if (chainId !== a.chainId) return { ok: false, reason: `the RPC serves chain ${chainId}, the anchor names chain ${a.chainId}` };
    const receipt = (await rpc(opts.rpcUrl, 'eth_getTransactionReceipt', [a.txHash], timeout)) as Receipt | null;
    if (!receipt) return { ok: false, reason: 'the anchoring transaction is not on the chain' };
    if (hexToNumber(receipt.status) !== 1) return { ok: false, reason: 'the anchoring transaction failed' };
    if (hexToNumber(receipt.blockNumber) !== a.evmBlockNumber) return { ok: false, reason: 'the anchoring transaction is in another EVM block' };
    const expected = {
      topics: [word(ANCHORED_EVENT_TOPIC), uintWord(a.fromBlock), uintWord(a.toBlock)],
      // Non-indexed arguments: lastBlockHash, then root, one word each.
      root: word(a.root),
    };
    const event = (receipt.logs ?? []).find(
      (l) =>
        !l.removed &&
        word(l.address ?? '') === word(a.contract) &&
        (l.topics ?? []).length === 3 &&
        (l.topics ?? []).every((t, i) => word(t) === expected.topics[i]),
    );
    if (!event) return { ok: false, reason: 'the transaction has no Anchored event of the contract for this range' };
    const data = (event.data ?? '').replace(/^0x/i, '').toLowerCase();
    if (data.length !== 128) return { ok: false, reason: 'the Anchored event data is not two words' };
    if (data.slice(64) !== expected.root) return { ok: false, reason: 'the root anchored on the chain differs (the ledger was changed after anchoring)' };
    if (a.lastBlockHash !== undefined && data.slice(0, 64) !== word(a.lastBlockHash)) {
      return { ok: false, reason: 'the last block hash anchored on the chain differs' };
    }
    // The receipt's block must still be the chain's block at that height (not a block reorganised away).
    const blk = (await rpc(opts.rpcUrl, 'eth_getBlockByNumber', [`0x${a.evmBlockNumber.toString(16)}`, false], timeout)) as { hash?: string } | null;
    if (!blk || word(blk.hash ?? '') !== word(receipt.blockHash ?? '')) return { ok: false, reason: 'the anchoring block is no longer part of the chain' };
  } catch (e) {
    return { ok: false, reason: `the chain could not be asked: ${(e as Error).message}` };
  }
  return { ok: true };
}

/** Compile-time guard: 4.15's checked proof answer is exactly what `verifyAnchoredProof` takes (kept here, so that the API's types import nothing of this file). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type _ProofAnswerIsAnchoredProof = Assert<Same<Omit<ProofResponse, 'version' | 'status'>, AnchoredProof>>;
