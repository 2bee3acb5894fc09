import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import {
  auditPath,
  blockHash,
  blockHeaderBytes,
  canonicalJson,
  leafHash,
  merkleRoot,
  nodeHash,
  onChainId,
  rootFromAuditPath,
  txHash,
  txLeaf,
  verifyBlockSignature,
  verifyChainProof,
  type ChainProof,
} from './merkle';

const h = (b: Buffer) => b.toString('hex');

/** RFC 6962 section 2.1, written recursively as the RFC states it. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return createHash('sha256').digest();
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
function path(m: number, leaves: Buffer[]): Buffer[] {
  if (leaves.length <= 1) return [];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return m < k ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))] : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}
const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => leafHash(`leaf ${i}`));

describe('canonicalJson', () => {
  test('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });
  test('sorts by UTF-16 code units and escapes like JSON.stringify', () => {
    expect(canonicalJson({ é: 1, z: 2, A: 3, 中: 4 })).toBe('{"A":3,"z":2,"é":1,"中":4}');
    expect(canonicalJson({ s: 'line\nbreak "q" \u0001' })).toBe('{"s":"line\\nbreak \\"q\\" \\u0001"}');
  });
  test('numbers in their shortest form; undefined members left out', () => {
    expect(canonicalJson({ n: 1.0, m: 1e21, x: undefined, k: -0 })).toBe('{"k":0,"m":1e+21,"n":1}');
  });
  test('refuses what JSON cannot hold', () => {
    expect(() => canonicalJson({ n: NaN })).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
  test('equal data, different key order: same text and same on-chain id', () => {
    const a = canonicalJson({ type: 'record', args: { id: '1', x: [1, 2] } });
    const b = canonicalJson({ args: { x: [1, 2], id: '1' }, type: 'record' });
    expect(a).toBe(b);
    expect(onChainId(a)).toBe(createHash('sha256').update(a).digest('hex'));
  });
});

describe('RFC 6962 Merkle tree', () => {
  test('reproduces the Certificate Transparency reference roots', () => {
    const inputs = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'];
    const leaves = inputs.map((x) => leafHash(Buffer.from(x, 'hex')));
    expect(h(merkleRoot([]))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(h(merkleRoot(leaves.slice(0, 1)))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(h(merkleRoot(leaves.slice(0, 4)))).toBe('d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7');
    expect(h(merkleRoot(leaves))).toBe('5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328');
  });

  test('leaf and node hashes carry the 0x00 / 0x01 prefixes', () => {
    expect(h(leafHash('abc'))).toBe(
      h(
        createHash('sha256')
          .update(Buffer.concat([Buffer.from([0]), Buffer.from('abc')]))
          .digest(),
      ),
    );
    const [l, r] = [leafHash('l'), leafHash('r')];
    expect(h(nodeHash(l, r))).toBe(
      h(
        createHash('sha256')
          .update(Buffer.concat([Buffer.from([1]), l, r]))
          .digest(),
      ),
    );
  });

  test('the bottom-up root equals the recursive definition for every size up to 70', () => {
    for (let n = 1; n <= 70; n++) expect(h(merkleRoot(leavesOf(n)))).toBe(h(mth(leavesOf(n))));
  });

  test('audit paths equal the recursive PATH and verify, for every leaf of every size up to 40', () => {
    for (let n = 1; n <= 40; n++) {
      const leaves = leavesOf(n);
      const root = merkleRoot(leaves);
      for (let m = 0; m < n; m++) {
        const p = auditPath(leaves, m);
        expect(p.map(h)).toEqual(path(m, leaves).map(h));
        expect(h(rootFromAuditPath(leaves[m], m, n, p)!)).toBe(h(root));
      }
    }
  });

  test('a wrong leaf, index, size or sibling does not lead to the root', () => {
    const leaves = leavesOf(13);
    const root = h(merkleRoot(leaves));
    const p = auditPath(leaves, 5);
    expect(h(rootFromAuditPath(leaves[6], 5, 13, p)!)).not.toBe(root);
    expect(rootFromAuditPath(leaves[5], 4, 13, p) && h(rootFromAuditPath(leaves[5], 4, 13, p)!)).not.toBe(root);
    expect(rootFromAuditPath(leaves[5], 5, 6, p)).toBeNull();
    expect(h(rootFromAuditPath(leaves[5], 5, 13, [leafHash('x'), ...p.slice(1)])!)).not.toBe(root);
    expect(rootFromAuditPath(leaves[5], 5, 13, p.slice(1))).toBeNull();
    expect(rootFromAuditPath(leaves[5], 13, 13, p)).toBeNull();
    expect(() => auditPath(leaves, 13)).toThrow(RangeError);
  });
});

describe('chain proofs', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyHex = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');

  function proofFor(index: number, n = 6): ChainProof {
    const contents = Array.from({ length: n }, (_, i) => canonicalJson({ type: 'record', args: { id: `r${i}` } }));
    const hashes = contents.map((c) => Buffer.from(txHash('app_x', c), 'hex'));
    const block = { number: 7, prevHash: 'ab'.repeat(32), merkleRoot: h(merkleRoot(hashes)), time: 1_700_000_000_000, txCount: n };
    return {
      id: onChainId(contents[index]),
      chainTrxId: h(hashes[index]),
      chainBlockNum: '7',
      content: contents[index],
      tx: txLeaf('app_x', contents[index]),
      leafIndex: index,
      treeSize: n,
      auditPath: auditPath(hashes, index).map(h),
      block,
      blockHash: blockHash(block),
      signature: sign(null, blockHeaderBytes(block), privateKey).toString('hex'),
      nodePublicKey: keyHex,
    };
  }

  test('the header form is fixed', () => {
    const block = { number: 1, prevHash: '0'.repeat(64), merkleRoot: 'f'.repeat(64), time: 5, txCount: 2 };
    expect(blockHeaderBytes(block).toString()).toBe(`{"merkleRoot":"${'f'.repeat(64)}","number":1,"prevHash":"${'0'.repeat(64)}","time":5,"txCount":2}`);
  });

  test('a genuine proof verifies, also with the key pinned (hex or PEM)', () => {
    for (let i = 0; i < 6; i++) expect(verifyChainProof(proofFor(i), keyHex)).toEqual({ ok: true });
    const p = proofFor(2);
    expect(verifyBlockSignature(p.block, p.signature, publicKey.export({ format: 'pem', type: 'spki' }).toString())).toBe(true);
  });

  test('every tampering is caught with its reason', () => {
    const p = proofFor(3);
    const cases: Array<[Partial<ChainProof>, RegExp]> = [
      [{ content: p.content.replace('r3', 'r4') }, /on-chain id/],
      [{ tx: txLeaf('app_y', p.content) }, /chainTrxId/],
      [{ leafIndex: 2 }, /audit path/],
      [{ auditPath: [...p.auditPath].reverse() }, /audit path/],
      [{ block: { ...p.block, time: p.block.time + 1 } }, /block hash/],
      [{ chainBlockNum: '8' }, /chainBlockNum/],
      [{ signature: '00'.repeat(64) }, /signature/],
      [{ treeSize: 5 }, /tree size/],
    ];
    for (const [patch, reason] of cases) {
      const r = verifyChainProof({ ...p, ...patch });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.reason).toMatch(reason);
    }
    expect(verifyChainProof(p, 'cd'.repeat(32))).toEqual({ ok: false, reason: 'the proof names another node key' });
  });
});
