/**
 * Helpers for the chain API tests, plus an independent proof verifier: it uses node:crypto only and
 * re-derives every hash from docs/chain.md and RFC 6962, importing nothing from the
 * server or from shared/merkle.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import type { KitClient } from '@kit/shared';
import { FAULT_LIMIT_MS, waitFor } from '../support/wait';

/** Raw answers of 4.14 / 4.15, for the tests of refusals (any item shape may be sent); the success path uses `client.upload` / `client.lookup`. */
export const upload = (client: KitClient, items: unknown[]) => client.call<any>('POST', '/common-chain-upload/', { body: { items } });
export const lookup = (client: KitClient, items: unknown[]) => client.call<any>('POST', '/common-chain-upload/fetchOnChainIds', { body: { items } });
export const i2c = (type: string, id: string) => ({ type, id, queryType: 'i2c' as const });

/**
 * The typed lookup's answers once no item is pending (`waitFor`: `limitMs` is its fault limit); with
 * `limitMs` 0, the answers of one lookup as they stand.
 */
export async function settle(
  client: KitClient,
  items: Array<{ type: string; id: string; queryType?: 'i2c' | 'c2i' }>,
  limitMs = FAULT_LIMIT_MS,
): Promise<any[]> {
  const q = items.map((i) => ({ queryType: 'i2c' as const, ...i }));
  const look = async () => (await client.lookup(q)).items;
  if (limitMs === 0) return look();
  return waitFor(
    async () => {
      const answers = await look();
      return answers.some((r) => r.id === '') ? null : answers;
    },
    `${items.length} chain item(s) out of the queue`,
    limitMs,
  );
}

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** RFC 9162 2.1.3.2, written out again: the root from a leaf hash and its audit path, or why the path is wrong. */
function rootOfPath(leaf: Buffer, index: number, size: number, path: string[]): Buffer | string {
  let r = leaf;
  let fn = index;
  let sn = size - 1;
  for (const hex of path) {
    const sib = Buffer.from(hex, 'hex');
    if (sn === 0) return 'path too long';
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([1]), sib, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      r = sha256(Buffer.from([1]), r, sib);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? r : 'path too short';
}

/**
 * The anchored root a proof's anchor section leads to, by docs/chain.md's rule for anchors made now
 * (leaf = SHA-256(0x00 ‖ blockHash bytes), node = SHA-256(0x01 ‖ left ‖ right)), hex; or why not.
 */
export function independentAnchorRoot(p: any): string {
  const a = p.anchor;
  const leaf = sha256(Buffer.from([0]), Buffer.from(p.blockHash, 'hex'));
  const r = rootOfPath(leaf, p.block.number - a.fromBlock, a.toBlock - a.fromBlock + 1, a.auditPath);
  return typeof r === 'string' ? r : `0x${r.toString('hex')}`;
}

/** Independent check of a proof answer; returns the reason it fails, or null when it holds. */
export function independentlyVerify(p: any, appId: string, expectedKeyHex?: string): string | null {
  if (sha256(Buffer.from(p.content, 'utf8')).toString('hex') !== p.id) return 'content hash != id';
  const tx = `{"app":${JSON.stringify(appId)},"item":${p.content}}`;
  if (p.tx !== tx) return 'tx text is not {app, item: content}';
  const leaf = sha256(Buffer.from([0]), Buffer.from(tx, 'utf8'));
  if (leaf.toString('hex') !== p.chainTrxId) return 'leaf hash != chainTrxId';
  const r = rootOfPath(leaf, p.leafIndex, p.treeSize, p.auditPath);
  if (typeof r === 'string') return r;
  const b = p.block;
  if (r.toString('hex') !== b.merkleRoot) return 'root mismatch';
  if (b.txCount !== p.treeSize) return 'tree size != txCount';
  if (String(b.number) !== p.chainBlockNum) return 'block number mismatch';
  const header = `{"merkleRoot":"${b.merkleRoot}","number":${b.number},"prevHash":"${b.prevHash}","time":${b.time},"txCount":${b.txCount}}`;
  if (sha256(Buffer.from(header)).toString('hex') !== p.blockHash) return 'block hash mismatch';
  const keyHex = expectedKeyHex ?? p.nodePublicKey;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(keyHex, 'hex').toString('base64url') }, format: 'jwk' });
  if (!verify(null, Buffer.from(header), key, Buffer.from(p.signature, 'hex'))) return 'bad signature';
  return null;
}
