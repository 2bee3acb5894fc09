/**
 * The chain ledger's verifiable structures (docs/chain.md), shared by the server that builds them and
 * anyone who checks them: canonical JSON, the RFC 6962 Merkle tree (leaf = SHA-256(0x00 || leaf),
 * node = SHA-256(0x01 || left || right)), inclusion proofs and signed block headers.
 *
 *   content     = canonicalJson({type, args})             (donations: {type, sealed})
 *   on-chain id = hex SHA-256(content)                     identical data → identical id
 *   leaf (tx)   = canonicalJson({app, item: content})
 *   chainTrxId  = hex SHA-256(0x00 || leaf)                the RFC 6962 leaf hash
 *   header      = canonicalJson({merkleRoot, number, prevHash, time, txCount})
 *   block hash  = hex SHA-256(header); signature = ed25519(header bytes)
 */
import { createHash, createPublicKey, hash as oneShotHash, verify as verifySignature, type KeyObject } from 'node:crypto';

/**
 * JSON with object keys sorted by UTF-16 code units and no whitespace (the key order and number and
 * string forms of RFC 8785, which are those of JSON.stringify). `undefined` members are left out.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no form for a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(obj).sort()) {
      if (obj[key] === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${canonicalJson(obj[key])}`);
    }
    return `{${parts.join(',')}}`;
  }
  throw new TypeError(`canonical JSON has no form for a ${typeof value}`);
}

const sha256 = (data: string | Uint8Array): Buffer => oneShotHash('sha256', data, 'buffer') as unknown as Buffer;
const sha256Hex = (data: string | Uint8Array): string => oneShotHash('sha256', data, 'hex');

const LEAF_PREFIX = Buffer.from([0]);

/** RFC 6962 leaf hash: SHA-256(0x00 || leaf). */
export function leafHash(leaf: string | Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(leaf).digest();
}

/** RFC 6962 interior node: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  const buf = Buffer.allocUnsafe(1 + left.length + right.length);
  buf[0] = 1;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return sha256(buf);
}

/**
 * Merkle tree hash of RFC 6962 over already-hashed leaves. Built bottom-up: pairing left to right
 * and carrying a lone last node up unchanged gives exactly the tree of RFC 6962's recursive split
 * at the largest power of two below n.
 */
export function merkleRoot(leafHashes: readonly Uint8Array[]): Buffer {
  if (leafHashes.length === 0) return sha256(Buffer.alloc(0));
  let level = leafHashes as readonly Uint8Array[];
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(nodeHash(level[i], level[i + 1]));
    if (level.length % 2 === 1) next.push(Buffer.from(level[level.length - 1]));
    level = next;
  }
  return Buffer.from(level[0]);
}

/** RFC 6962 audit path for leaf `index`, bottom-up (the order `rootFromAuditPath` consumes). */
export function auditPath(leafHashes: readonly Uint8Array[], index: number): Buffer[] {
  if (!Number.isInteger(index) || index < 0 || index >= leafHashes.length) throw new RangeError(`leaf ${index} is outside a tree of ${leafHashes.length}`);
  const path: Buffer[] = [];
  let level = leafHashes as readonly Uint8Array[];
  let i = index;
  while (level.length > 1) {
    const sibling = i ^ 1;
    if (sibling < level.length) path.push(Buffer.from(level[sibling]));
    const next: Buffer[] = [];
    for (let j = 0; j + 1 < level.length; j += 2) next.push(nodeHash(level[j], level[j + 1]));
    if (level.length % 2 === 1) next.push(Buffer.from(level[level.length - 1]));
    level = next;
    i >>= 1;
  }
  return path;
}

/**
 * Recomputes the root from a leaf hash and its audit path (the verification algorithm of RFC 9162
 * section 2.1.3.2). Returns null when the path cannot belong to a tree of `treeSize` leaves.
 */
export function rootFromAuditPath(leaf: Uint8Array, index: number, treeSize: number, path: readonly Uint8Array[]): Buffer | null {
  if (!Number.isInteger(index) || !Number.isInteger(treeSize) || index < 0 || index >= treeSize) return null;
  let fn = index;
  let sn = treeSize - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** What a block commits to; its canonical JSON is what the node signs. */
export interface BlockHeader {
  number: number;
  /** Hex hash of the previous block's header; 64 zeros for block 1. */
  prevHash: string;
  /** Hex RFC 6962 root over the block's transactions in order. */
  merkleRoot: string;
  /** Unix milliseconds when the block was sealed. */
  time: number;
  txCount: number;
}

export const GENESIS_PREV_HASH = '0'.repeat(64);

export function blockHeaderBytes(h: BlockHeader): Buffer {
  return Buffer.from(canonicalJson({ merkleRoot: h.merkleRoot, number: h.number, prevHash: h.prevHash, time: h.time, txCount: h.txCount }), 'utf8');
}

export const blockHash = (h: BlockHeader): string => sha256Hex(blockHeaderBytes(h));

/** The transaction text of an item: who uploaded it and its canonical content. */
export function txLeaf(appId: string, content: string): string {
  return `{"app":${JSON.stringify(appId)},"item":${content}}`;
}

/** On-chain id of an item's canonical content: hex SHA-256. */
export const onChainId = (content: string): string => sha256Hex(content);

/** Transaction hash (chainTrxId): the RFC 6962 leaf hash of the transaction text, hex. */
export const txHash = (appId: string, content: string): string => leafHash(txLeaf(appId, content)).toString('hex');

/** An ed25519 public key given as 64 hex characters (raw 32 bytes) or PEM (SPKI). */
export function ed25519PublicKey(key: string): KeyObject {
  if (/^[0-9a-f]{64}$/i.test(key)) {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key, 'hex').toString('base64url') }, format: 'jwk' });
  }
  return createPublicKey(key);
}

export function verifyBlockSignature(h: BlockHeader, signatureHex: string, publicKey: string | KeyObject): boolean {
  try {
    const key = typeof publicKey === 'string' ? ed25519PublicKey(publicKey) : publicKey;
    return verifySignature(null, blockHeaderBytes(h), key, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

/** What `GET /common-chain-upload/proof/<id>` answers (beside version and status). */
export interface ChainProof {
  /** On-chain id: hex SHA-256 of `content`. */
  id: string;
  chainTrxId: string;
  chainBlockNum: string;
  /** The item's canonical content and the transaction (leaf) text. */
  content: string;
  tx: string;
  leafIndex: number;
  treeSize: number;
  /** Sibling hashes, hex, from the leaf upwards. */
  auditPath: string[];
  block: BlockHeader;
  blockHash: string;
  /** Hex ed25519 signature over the canonical header. */
  signature: string;
  /** Raw ed25519 public key of the node, hex. */
  nodePublicKey: string;
}

export type ProofCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks a proof end to end: the content hashes to the id, the transaction carries the content and
 * hashes to chainTrxId, the audit path leads to the block's root, and the node signed the header.
 * Pass `trustedKey` to pin the node key instead of trusting the one in the proof.
 */
export function verifyChainProof(p: ChainProof, trustedKey?: string): ProofCheck {
  if (onChainId(p.content) !== p.id) return { ok: false, reason: 'the content does not hash to the on-chain id' };
  let tx: { item?: unknown };
  try {
    tx = JSON.parse(p.tx);
  } catch {
    return { ok: false, reason: 'the transaction is not JSON' };
  }
  if (canonicalJson(tx.item) !== p.content) return { ok: false, reason: 'the transaction does not carry the content' };
  const leaf = leafHash(p.tx);
  if (leaf.toString('hex') !== p.chainTrxId) return { ok: false, reason: 'the transaction does not hash to chainTrxId' };
  if (p.treeSize !== p.block.txCount) return { ok: false, reason: 'the tree size differs from the block transaction count' };
  const root = rootFromAuditPath(
    leaf,
    p.leafIndex,
    p.treeSize,
    p.auditPath.map((h) => Buffer.from(h, 'hex')),
  );
  if (!root || root.toString('hex') !== p.block.merkleRoot) return { ok: false, reason: 'the audit path does not lead to the block root' };
  if (String(p.block.number) !== p.chainBlockNum) return { ok: false, reason: 'the block number differs from chainBlockNum' };
  if (blockHash(p.block) !== p.blockHash) return { ok: false, reason: 'the block hash does not match the header' };
  if (trustedKey && trustedKey.toLowerCase() !== p.nodePublicKey.toLowerCase()) return { ok: false, reason: 'the proof names another node key' };
  if (!verifyBlockSignature(p.block, p.signature, trustedKey ?? p.nodePublicKey)) return { ok: false, reason: 'the block signature is invalid' };
  return { ok: true };
}
