/**
 * The node's ed25519 key that signs block headers. CHAIN_NODE_KEY (64 hex characters of seed, or a
 * PKCS#8 PEM) wins; otherwise a seed is generated into DATA_DIR/chain-node.key (mode 0600) on first
 * start. Several instances sharing one PostgreSQL database must share CHAIN_NODE_KEY.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { blockHeaderBytes, type BlockHeader } from '@kit/shared';
import { ensurePrivateDir } from '../security/private-dir';

// DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface NodeKey {
  /** Raw public key, hex (what blocks record and proofs carry). */
  publicKeyHex: string;
  publicKeyPem: string;
  signHeader(h: BlockHeader): string;
}

export function nodeKeyFrom(privateKey: KeyObject): NodeKey {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the chain node key must be an ed25519 key');
  const pub = createPublicKey(privateKey);
  const raw = Buffer.from(pub.export({ format: 'jwk' }).x as string, 'base64url');
  return {
    publicKeyHex: raw.toString('hex'),
    publicKeyPem: pub.export({ format: 'pem', type: 'spki' }).toString(),
    signHeader: (h) => sign(null, blockHeaderBytes(h), privateKey).toString('hex'),
  };
}

export function keyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error('an ed25519 seed is 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

function parseKey(text: string, source: string): KeyObject {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return keyFromSeed(Buffer.from(t, 'hex'));
  try {
    return createPrivateKey(t);
  } catch {
    throw new Error(`${source} must be 64 hex characters (an ed25519 seed) or a PKCS#8 PEM ed25519 private key`);
  }
}

export function loadNodeKey(opts: { envKey?: string; dataDir: string }): NodeKey {
  if (opts.envKey) return nodeKeyFrom(parseKey(opts.envKey, 'CHAIN_NODE_KEY'));
  const file = path.join(opts.dataDir, 'chain-node.key');
  ensurePrivateDir(opts.dataDir);
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return nodeKeyFrom(parseKey(fs.readFileSync(file, 'utf8'), file));
}
