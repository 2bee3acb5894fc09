#!/usr/bin/env node
/**
 * Checks a merchant kit proof and its anchor with nothing but the proof and an Ethereum JSON-RPC URL
 * (docs/chain.md, "Verifying an anchored record"). Plain Node 18+ (fetch, node:crypto); it uses
 * nothing of the kit, so it can be read line by line against the documentation.
 *
 *   node verify-anchor.mjs proof.json https://rpc.example.org [nodePublicKeyHex]
 *
 * proof.json is the answer of GET /common-chain-upload/proof/<on-chain id>. Prints one line and
 * exits 0 when every step holds, 1 with the step that failed otherwise.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** keccak256("Anchored(uint64,uint64,bytes32,bytes32)"), the event's topic 0 (check it with any keccak tool). */
const ANCHORED_TOPIC = '047ae1cdca30d791d3ef89967fc37910d19a0e215f82bda8c844c90bc35ed3d5';

const [file, rpcUrl, trustedKey] = process.argv.slice(2);
if (!file || !rpcUrl) {
  console.error('usage: node verify-anchor.mjs proof.json <rpc url> [node public key hex]');
  process.exit(2);
}
const p = JSON.parse(readFileSync(file, 'utf8'));
const fail = (why) => {
  console.log(`FAIL: ${why}`);
  process.exit(1);
};
const sha256 = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest();
const hex = (h) => Buffer.from(h.replace(/^0x/, ''), 'hex');
const word = (h) => h.replace(/^0x/, '').toLowerCase().padStart(64, '0');

/** RFC 9162 2.1.3.2: the root from a leaf hash, its index, the tree size and the audit path. */
function rootOf(leaf, index, size, path) {
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const h of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([1]), hex(h), r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      r = sha256(Buffer.from([1]), r, hex(h));
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? r.toString('hex') : null;
}

async function rpc(method, params) {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

// 1. The item: content → on-chain id, transaction → chainTrxId, audit path → the block's Merkle root.
if (sha256(Buffer.from(p.content)).toString('hex') !== p.id) fail('the content does not hash to the on-chain id');
if (JSON.stringify(JSON.parse(p.tx).item) !== JSON.stringify(JSON.parse(p.content))) fail('the transaction does not carry the content');
const leaf = sha256(Buffer.from([0]), Buffer.from(p.tx));
if (leaf.toString('hex') !== p.chainTrxId) fail('the transaction does not hash to chainTrxId');
if (rootOf(leaf, p.leafIndex, p.treeSize, p.auditPath) !== p.block.merkleRoot) fail('the audit path does not lead to the block root');

// 2. The block: canonical header → block hash, signed by the node key you trust.
const b = p.block;
const header = `{"merkleRoot":"${b.merkleRoot}","number":${b.number},"prevHash":"${b.prevHash}","time":${b.time},"txCount":${b.txCount}}`;
if (sha256(Buffer.from(header)).toString('hex') !== p.blockHash) fail('the header does not hash to the block hash');
const key = trustedKey ?? p.nodePublicKey;
if (key.toLowerCase() !== p.nodePublicKey.toLowerCase()) fail('the proof names another node key');
const pub = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), hex(key)]), format: 'der', type: 'spki' });
if (!verify(null, Buffer.from(header), pub, hex(p.signature))) fail('the block signature is invalid');

// 3. The anchor: block hash → anchored root (RFC 6962 over the range's block hashes). The leaf is
// SHA-256(0x00 ‖ blockHash bytes) under leafRule "rfc6962"; anchors made before the rule was named
// say "raw" (or, in proofs of servers that did not name it, nothing): the block hash itself.
const a = p.anchor;
if (!a) fail('the proof has no anchor yet (its block is not anchored)');
if (a.leafIndex !== b.number - a.fromBlock || b.number > a.toBlock) fail('the block is not at its place in the anchored range');
const rule = a.leafRule ?? 'raw';
if (rule !== 'rfc6962' && rule !== 'raw') fail(`unknown anchor leaf rule ${rule}`);
const anchorLeaf = rule === 'rfc6962' ? sha256(Buffer.from([0]), hex(p.blockHash)) : hex(p.blockHash);
if (rootOf(anchorLeaf, a.leafIndex, a.toBlock - a.fromBlock + 1, a.auditPath) !== word(a.root)) fail('the block hash does not lead to the anchored root');

// 4. The chain: the transaction succeeded in that block and emitted Anchored(fromBlock, toBlock, lastBlockHash, root).
if (Number(await rpc('eth_chainId', [])) !== a.chainId) fail(`the RPC is not chain ${a.chainId}`);
const receipt = await rpc('eth_getTransactionReceipt', [a.txHash]);
if (!receipt) fail('the anchoring transaction is not on the chain');
if (Number(receipt.status) !== 1) fail('the anchoring transaction failed');
if (Number(receipt.blockNumber) !== a.evmBlockNumber) fail('the transaction is in another block');
const topics = [ANCHORED_TOPIC, word(a.fromBlock.toString(16)), word(a.toBlock.toString(16))];
const log = receipt.logs.find((l) => word(l.address) === word(a.contract) && l.topics.length === 3 && l.topics.every((t, i) => word(t) === topics[i]));
if (!log) fail('no Anchored event of the contract for this range in the transaction');
const data = log.data.replace(/^0x/, '').toLowerCase();
if (data.slice(64, 128) !== word(a.root)) fail('the root on the chain differs: the ledger was changed after anchoring');
if (b.number === a.toBlock && data.slice(0, 64) !== p.blockHash) fail('the last block hash on the chain differs');
const evmBlock = await rpc('eth_getBlockByNumber', [`0x${a.evmBlockNumber.toString(16)}`, false]);
if (!evmBlock || evmBlock.hash !== receipt.blockHash) fail('the anchoring block is no longer part of the chain');
const head = Number(await rpc('eth_blockNumber', []));
console.log(
  `OK: item ${p.id} is in ledger block ${b.number}, anchored in blocks ${a.fromBlock}..${a.toBlock} by ${a.txHash} (chain ${a.chainId}, EVM block ${a.evmBlockNumber}, ${head - a.evmBlockNumber + 1} confirmations)`,
);
