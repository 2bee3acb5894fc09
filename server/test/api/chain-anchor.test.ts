/**
 * Anchoring on a real local EVM node (anvil from npm): the kit command deploys the contract, the
 * worker anchors every new range, proofs carry anchors that `verifyAnchoredProof` and the
 * documented third-party script accept; an RPC outage only delays anchors; a block re-signed in
 * the database afterwards passes the ledger's own check but not the anchors.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Contract, JsonRpcProvider, computeAddress, getAddress } from 'ethers';
import { blockHash, verifyAnchoredProof, verifyChainProof, type AnchoredProof, type BlockHeader, type KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { ANVIL_CHAIN_ID, ANVIL_KEY, startAnvil, startRelay, type Anvil } from '../support/anvil';
import { ANCHOR_ABI } from '../../src/chain/anchor/anchor-evm';
import { i2c, independentAnchorRoot, settle, upload } from './chain-helpers';
import { anchoredEvents, expectContiguousAnchors, metricValue, kitJson } from './anchor-helpers';
import { waitFor } from '../support/wait';

const ROOT = path.resolve(__dirname, '../../..');

const runScript = (args: string[]) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'examples/verify-anchor.mjs'), ...args], (err, stdout) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout.trim() }),
    );
  });

describeEachBackend('anchoring ledger blocks on an EVM chain', (backend) => {
  let anvil: Anvil;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let kit: TestKit;
  let env: NodeJS.ProcessEnv;
  let deployed: { contract: string; chainId: number; txHash: string };
  let app: { appId: string; appSecret: string; client: KitClient };
  let nodeKey: string;
  let round = 0;

  const kitCommand = (...args: string[]) => kitJson(args, env);
  const blockHashes = async (from: number, to: number) => (await kit.runtime.services.chain.stores.anchors.blockHashes(from, to)).map((b) => b.hash);
  const latestBlock = async () => (await kit.runtime.services.chain.stores.ledger.latestBlock(kit.runtime.db.db))!.number;
  const held = async () => {
    const provider = new JsonRpcProvider(anvil.url, ANVIL_CHAIN_ID, { staticNetwork: true });
    try {
      return Number(await new Contract(deployed.contract, ANCHOR_ABI, provider).lastToBlock());
    } finally {
      provider.destroy();
    }
  };
  const metrics = async () => (await fetch(`${kit.url}/metrics`)).text();
  /** Uploads `blocks` calls one after the other, each confirmed before the next (so each lands in a block of its own). */
  const uploadBlocks = async (blocks: number) => {
    const ids: string[] = [];
    for (let b = 0; b < blocks; b++) {
      const items = Array.from({ length: 3 }, (_, i) => ({ type: 'record', args: { id: `r${round}-${b}-${i}`, n: i } }));
      await upload(app.client, items);
      const answers = await settle(
        app.client,
        items.map((it) => i2c('record', it.args.id)),
      );
      ids.push(...answers.map((a) => a.id));
    }
    round++;
    return ids;
  };
  const anchoredProof = (id: string) =>
    waitFor(async () => {
      const p = await app.client.proof(id);
      return p.status === 'success' && p.anchor ? (p as AnchoredProof) : undefined;
    }, `the anchor of ${id}`);

  beforeAll(async () => {
    anvil = await startAnvil();
    relay = await startRelay(anvil.url);
    env = { ...backend.env(), CHAIN_ANCHOR_RPC_URL: relay.url, CHAIN_ANCHOR_KEY: ANVIL_KEY };
    const d = await kitCommand('chain', 'anchor', 'deploy');
    expect(d.code).toBe(0);
    deployed = d.result;
    env = { ...env, CHAIN_ANCHOR_CONTRACT: deployed.contract };
    kit = await startTestKit(backend, { ...env, CHAIN_ANCHOR_INTERVAL: '300ms', CHAIN_SEAL_INTERVAL: '100ms' });
    app = await kit.newApp();
    nodeKey = kit.runtime.services.chain.nodeKey.publicKeyHex;
  }, 180_000);
  afterAll(async () => {
    await kit?.close();
    await relay?.close();
    await anvil?.stop();
  });

  test('`chain anchor deploy` deploys the contract and prints its address, the chain id and the transaction', async () => {
    expect(deployed).toEqual({
      contract: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      chainId: ANVIL_CHAIN_ID,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const receipt = await anvil.rpc<{ status: string; contractAddress: string }>('eth_getTransactionReceipt', [deployed.txHash]);
    expect(receipt).toMatchObject({ status: '0x1', contractAddress: deployed.contract.toLowerCase() });
    expect((await anvil.rpc<string>('eth_getCode', [deployed.contract, 'latest'])).length).toBeGreaterThan(100);
  });

  test('every confirmed item gets an anchor that verifyAnchoredProof and the third-party script accept', async () => {
    const ids = await uploadBlocks(3);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-anchor-'));
    try {
      for (const id of ids) {
        const proof = await anchoredProof(id);
        expect(proof.anchor).toMatchObject({
          chainId: ANVIL_CHAIN_ID,
          contract: deployed.contract.toLowerCase(),
          leafIndex: proof.block.number - proof.anchor!.fromBlock,
        });
        expect(await verifyAnchoredProof(proof, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({ ok: true });
        const file = path.join(dir, `${id}.json`);
        fs.writeFileSync(file, JSON.stringify(proof));
        const script = await runScript([file, anvil.url, nodeKey]);
        expect(script).toMatchObject({ code: 0, out: expect.stringMatching(/^OK: item /) });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const latest = await latestBlock();
    await waitFor(async () => ((await held()) === latest ? true : undefined), 'every block anchored');
    await expectContiguousAnchors(await anchoredEvents(anvil.url, deployed.contract), blockHashes, latest);
    const text = await waitFor(async () => {
      const t = await metrics();
      return metricValue(t, 'kit_chain_anchor_last_block') === latest ? t : undefined;
    }, 'the metrics to catch up');
    expect(metricValue(text, 'kit_chain_anchor_lag_blocks')).toBe(0);
    expect(metricValue(text, 'kit_chain_anchor_lag_seconds')).toBe(0);
    expect(metricValue(text, 'kit_chain_anchored_blocks_total')).toBe(latest);
    expect(await kitCommand('chain', 'verify', '--anchors')).toMatchObject({
      code: 0,
      result: { ok: true, anchors: { ok: true, chainId: ANVIL_CHAIN_ID, lastAnchored: latest, contractHolds: latest } },
    });
  }, 180_000);

  test('the contract address compares case-insensitively: a proof naming it with EIP-55 capitals verifies (docs/chain.md)', async () => {
    const [id] = await uploadBlocks(1);
    const proof = await anchoredProof(id);
    const checksummed = getAddress(proof.anchor!.contract);
    expect(checksummed).not.toBe(proof.anchor!.contract);
    const capitals = { ...proof, anchor: { ...proof.anchor!, contract: checksummed } };
    expect(await verifyAnchoredProof(capitals, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({ ok: true });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-anchor-'));
    try {
      fs.writeFileSync(path.join(dir, 'proof.json'), JSON.stringify(capitals));
      expect(await runScript([path.join(dir, 'proof.json'), anvil.url, nodeKey])).toMatchObject({ code: 0, out: expect.stringMatching(/^OK: item /) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a proof is refused when its anchor does not match the chain', async () => {
    const [id] = await uploadBlocks(1);
    const proof = await anchoredProof(id);
    const a = proof.anchor!;
    const wrongRoot = { ...proof, anchor: { ...a, root: `0x${'ab'.repeat(32)}` } };
    expect(await verifyAnchoredProof(wrongRoot, { rpcUrl: anvil.url })).toEqual({ ok: false, reason: 'the block hash does not lead to the anchored root' });
    const wrongTx = { ...proof, anchor: { ...a, txHash: deployed.txHash } };
    expect(await verifyAnchoredProof(wrongTx, { rpcUrl: anvil.url })).toMatchObject({ ok: false });
    const otherChain = { ...proof, anchor: { ...a, chainId: 1 } };
    expect(await verifyAnchoredProof(otherChain, { rpcUrl: anvil.url })).toMatchObject({ ok: false, reason: expect.stringContaining('chain') });
    const { anchor: _none, ...unanchored } = proof;
    expect(await verifyAnchoredProof(unanchored, { rpcUrl: anvil.url })).toMatchObject({ ok: false, reason: expect.stringContaining('no anchor') });
  });

  test('with the RPC down anchors wait, and once it is back every block is anchored, none twice, none skipped', async () => {
    const before = await latestBlock();
    await waitFor(async () => ((await held()) === before ? true : undefined), 'everything anchored');
    const rpcFailures = async () => metricValue(await metrics(), 'kit_chain_anchor_failures_total{reason="rpc"}') ?? 0;
    const failuresBefore = await rpcFailures();
    relay.up = false;
    let ids: string[] = [];
    try {
      ids = await uploadBlocks(3);
      // Rounds fail, and the one after the last of the three blocks reports all three as waiting.
      const text = await waitFor(async () => {
        const t = await metrics();
        return (await rpcFailures()) >= failuresBefore + 2 && metricValue(t, 'kit_chain_anchor_lag_blocks') === 3 ? t : undefined;
      }, 'anchoring rounds to fail with the three blocks waiting');
      expect(metricValue(text, 'kit_chain_anchor_lag_seconds')).toBeGreaterThan(0);
      expect(await held()).toBe(before);
      expect((await app.client.proof(ids[0])) as AnchoredProof).not.toHaveProperty('anchor');
    } finally {
      relay.up = true;
    }
    const latest = await latestBlock();
    await waitFor(async () => ((await held()) === latest ? true : undefined), 'the blocks sealed during the outage to be anchored');
    const events = await anchoredEvents(anvil.url, deployed.contract);
    for (const id of ids) {
      const proof = await anchoredProof(id);
      expect(await verifyAnchoredProof(proof, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({ ok: true });
      // The three blocks were anchored as one range: a verifier written from docs/chain.md walks a real path to the root on the chain.
      expect(proof.anchor).toMatchObject({ fromBlock: before + 1, toBlock: before + 3, leafRule: 'rfc6962' });
      expect(independentAnchorRoot(proof)).toBe(proof.anchor!.root);
      expect(`0x${events.find((e) => e.fromBlock === before + 1)!.root}`).toBe(proof.anchor!.root);
    }
    await expectContiguousAnchors(events, blockHashes, latest);
    // Every transaction the key sent (after the deployment) anchored a range: nothing was refused or sent twice.
    const sent = Number(BigInt(await anvil.rpc<string>('eth_getTransactionCount', [computeAddress(ANVIL_KEY), 'latest'])));
    expect(sent).toBe(1 + events.length);
  }, 180_000);

  test("a one-block range's root is the RFC 6962 leaf of its block hash, as docs/chain.md says, and a verifier written from the docs accepts it", async () => {
    const before = await latestBlock();
    await waitFor(async () => ((await held()) === before ? true : undefined), 'everything anchored');
    // The only block sealed since: anchored alone.
    const [id] = await uploadBlocks(1);
    const proof = await anchoredProof(id);
    expect(proof.anchor).toMatchObject({ fromBlock: before + 1, toBlock: before + 1, leafIndex: 0, auditPath: [], leafRule: 'rfc6962' });
    const leaf = `0x${createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(proof.blockHash, 'hex')]))
      .digest('hex')}`;
    expect(proof.anchor!.root).toBe(leaf);
    expect(proof.anchor!.root).not.toBe(`0x${proof.blockHash}`);
    expect(independentAnchorRoot(proof)).toBe(proof.anchor!.root);
    const [event] = (await anchoredEvents(anvil.url, deployed.contract)).filter((e) => e.fromBlock === before + 1);
    expect(event).toMatchObject({ toBlock: before + 1, root: leaf.slice(2), lastBlockHash: proof.blockHash });
    expect(await verifyAnchoredProof(proof, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({ ok: true });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-anchor-'));
    try {
      fs.writeFileSync(path.join(dir, 'p.json'), JSON.stringify(proof));
      expect(await runScript([path.join(dir, 'p.json'), anvil.url, nodeKey])).toMatchObject({ code: 0, out: expect.stringMatching(/^OK: item /) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a block re-signed in the database after anchoring passes the ledger check but fails the anchor checks', async () => {
    const [id] = await uploadBlocks(1);
    const honest = await anchoredProof(id);
    const number = honest.block.number;
    const latest = await latestBlock();
    expect(number).toBe(latest);
    await waitFor(async () => ((await held()) === latest ? true : undefined), 'the last block anchored');

    // Whoever holds the node key rewrites the last block (here its time) and signs it again:
    // the ledger stays self-consistent, so only the anchors can tell.
    const { db } = kit.runtime.db;
    const row = (await kit.runtime.services.chain.stores.ledger.block(db, number))!;
    const forged: BlockHeader = { number, prevHash: row.prev_hash, merkleRoot: row.merkle_root, time: row.time + 1, txCount: row.tx_count };
    await db
      .updateTable('chain_blocks')
      .set({ time: forged.time, hash: blockHash(forged), signature: kit.runtime.services.chain.nodeKey.signHeader(forged) })
      .where('number', '=', number)
      .execute();

    expect(await kitCommand('chain', 'verify')).toMatchObject({ code: 0, result: { ok: true } });
    expect(await kitCommand('chain', 'verify', '--anchors')).toMatchObject({
      code: 1,
      result: { ok: false, anchors: { ok: false, problem: { toBlock: number, detail: expect.stringContaining('changed after anchoring') } } },
    });
    const now = (await app.client.proof(id)) as AnchoredProof;
    expect(verifyChainProof(now, nodeKey)).toEqual({ ok: true });
    expect(await verifyAnchoredProof(now, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({
      ok: false,
      reason: 'the block hash does not lead to the anchored root',
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-anchor-'));
    try {
      fs.writeFileSync(path.join(dir, 'p.json'), JSON.stringify(now));
      expect(await runScript([path.join(dir, 'p.json'), anvil.url, nodeKey])).toEqual({
        code: 1,
        out: 'FAIL: the block hash does not lead to the anchored root',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // The proof taken before the change still holds: the chain keeps what was true then.
    expect(await verifyAnchoredProof(honest, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({ ok: true });
  }, 180_000);
});
