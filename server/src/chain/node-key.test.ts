import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { verifyBlockSignature } from '@kit/shared';
import { loadNodeKey } from './node-key';

const header = { number: 1, prevHash: '0'.repeat(64), merkleRoot: 'a'.repeat(64), time: 1, txCount: 1 };

describe('chain node key', () => {
  test('generated once into DATA_DIR (mode 0600) and reused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-key-'));
    try {
      const a = loadNodeKey({ dataDir: dir });
      const b = loadNodeKey({ dataDir: dir });
      expect(a.publicKeyHex).toBe(b.publicKeyHex);
      expect(fs.statSync(path.join(dir, 'chain-node.key')).mode & 0o777).toBe(0o600);
      expect(verifyBlockSignature(header, a.signHeader(header), b.publicKeyHex)).toBe(true);
      expect(verifyBlockSignature(header, a.signHeader(header), a.publicKeyPem)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('CHAIN_NODE_KEY as a hex seed or a PKCS#8 PEM wins over the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-key-'));
    try {
      const seed = '11'.repeat(32);
      const fromSeed = loadNodeKey({ envKey: seed, dataDir: dir });
      expect(loadNodeKey({ envKey: seed, dataDir: dir }).publicKeyHex).toBe(fromSeed.publicKeyHex);
      expect(fs.existsSync(path.join(dir, 'chain-node.key'))).toBe(false);
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const fromPem = loadNodeKey({ envKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), dataDir: dir });
      expect(fromPem.publicKeyHex).toBe(Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex'));
      expect(() => loadNodeKey({ envKey: 'not a key', dataDir: dir })).toThrow(/CHAIN_NODE_KEY/);
      const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      expect(() => loadNodeKey({ envKey: rsa, dataDir: dir })).toThrow(/ed25519/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
