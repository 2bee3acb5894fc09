/**
 * Anchors made before the RFC 6962 leaf (the block hash itself as the leaf, so a one-block range's
 * root was the block hash) stay verifiable after the upgrade: the migration names the recorded ones
 * `raw`, one the previous version sent and did not record is recognised by its root, and every
 * proof names its rule, which `verifyAnchoredProof`, the documented script and `kit chain verify
 * --anchors` follow. Anchors made from then on use the RFC 6962 leaf. A real EVM node (anvil); the
 * previous version is played on its own schema (the migrations before 0010) and root rule.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { Migrator, type Kysely } from 'kysely';
import { KitClient, anchorRoot, verifyAnchoredProof, type AnchoredProof } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { ANVIL_KEY, startAnvil, type Anvil } from '../support/anvil';
import { openDatabase, type DbHandle } from '../../src/db/connect';
import { KIT_MIGRATIONS } from '../../src/db/migrations';
import { AnchorChain } from '../../src/chain/anchor/anchor-evm';
import { i2c, settle, upload } from './chain-helpers';
import { kitJson } from './anchor-helpers';
import { waitFor } from '../support/wait';

const ROOT = path.resolve(__dirname, '../../..');

/** Brings the service's schema back to the migration before the one that named the leaf rule (the previous version's). */
async function migrateToBeforeLeafRule(handle: DbHandle): Promise<void> {
  const names = Object.keys(KIT_MIGRATIONS.migrations(handle.dialect));
  const before = names[names.findIndex((n) => n.endsWith('_chain_anchor_leaf_rule')) - 1];
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => KIT_MIGRATIONS.migrations(handle.dialect) },
    migrationTableName: KIT_MIGRATIONS.table,
    migrationLockTableName: `${KIT_MIGRATIONS.table}_lock`,
    ...(handle.dialect === 'postgres' && handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
  const { error } = await migrator.migrateTo(before);
  if (error) throw error;
}

const runScript = (args: string[]) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'examples/verify-anchor.mjs'), ...args], (err, stdout) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout.trim() }),
    );
  });

describeEachBackend('anchors recorded before the RFC 6962 leaf', (backend) => {
  let anvil: Anvil;
  let kit: TestKit | undefined;

  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await kit?.close();
    await anvil?.stop();
  });

  test('stay verifiable by the raw rule they name, while new anchors use the RFC 6962 leaf', async () => {
    const db = backend.env();
    let env: NodeJS.ProcessEnv = { ...db, CHAIN_ANCHOR_RPC_URL: anvil.url, CHAIN_ANCHOR_KEY: ANVIL_KEY };
    const kitCommand = (...args: string[]) => kitJson(args, env);
    const { result: deployed } = await kitCommand('chain', 'anchor', 'deploy');
    const contract = (deployed.contract as string).toLowerCase();
    env = { ...env, CHAIN_ANCHOR_CONTRACT: contract };

    // One block per upload: the first id of each.
    const ids: string[] = [];
    const uploadBlock = async (client: KitClient, tag: string) => {
      const items = Array.from({ length: 2 }, (_, i) => ({ type: 'record', args: { id: `${tag}-${i}` } }));
      await upload(client, items);
      const answers = await settle(
        client,
        items.map((it) => i2c('record', it.args.id)),
        15_000,
      );
      ids.push(answers[0].id);
    };

    // Three blocks sealed with anchoring off.
    kit = await startTestKit(backend, { ...db, CHAIN_SEAL_INTERVAL: '100ms' });
    const app = await kit.newApp();
    for (const tag of ['one', 'two', 'three']) await uploadBlock(app.client, tag);
    await kit.close();
    kit = undefined;

    // The previous version: its schema, and roots over the raw block hashes. It anchored blocks 1..2 and
    // recorded them, then anchored block 3 (root = the block hash itself) and died before recording it.
    const handle = await openDatabase({ dataDir: db.DATA_DIR!, databaseUrl: db.DATABASE_URL, schema: db.DATABASE_SCHEMA });
    try {
      await migrateToBeforeLeafRule(handle);
      const hashes = (await handle.db.selectFrom('chain_blocks').select('hash').orderBy('number').execute()).map((b) => b.hash);
      expect(hashes).toHaveLength(3);
      const chain = await AnchorChain.connect(anvil.url, { key: ANVIL_KEY, contract, pollingMs: 50 });
      try {
        const first = await chain.anchor({ fromBlock: 1, toBlock: 2, lastBlockHash: hashes[1], root: anchorRoot(hashes.slice(0, 2), 'raw') }, 1, 30_000);
        // The row as that version wrote it: its table had no leaf rule.
        await (handle.db as unknown as Kysely<Record<string, Record<string, unknown>>>)
          .insertInto('chain_anchors')
          .values({
            contract,
            from_block: 1,
            to_block: 2,
            chain_id: chain.chainId,
            last_block_hash: hashes[1],
            root: first.root,
            tx_hash: first.txHash,
            evm_block: first.evmBlock,
            anchored_at: Date.now(),
          })
          .execute();
        await chain.anchor({ fromBlock: 3, toBlock: 3, lastBlockHash: hashes[2], root: hashes[2] }, 1, 30_000);
      } finally {
        chain.destroy();
      }
    } finally {
      await handle.close();
    }

    // This version, anchoring.
    kit = await startTestKit(backend, { ...env, CHAIN_ANCHOR_INTERVAL: '200ms', CHAIN_SEAL_INTERVAL: '100ms' });
    const client = new KitClient({ baseUrl: kit.url, appId: app.appId, appSecret: app.appSecret });
    await uploadBlock(client, 'four');
    const proofs: AnchoredProof[] = [];
    for (const id of ids) {
      proofs.push(
        await waitFor(async () => {
          const p = await client.proof(id);
          return p.status === 'success' && p.anchor ? (p as AnchoredProof) : undefined;
        }, `the anchor of ${id}`),
      );
    }
    expect(proofs.map((p) => [p.anchor!.fromBlock, p.anchor!.toBlock, p.anchor!.leafRule])).toEqual([
      [1, 2, 'raw'],
      [1, 2, 'raw'],
      [3, 3, 'raw'],
      [4, 4, 'rfc6962'],
    ]);
    expect(proofs[2].anchor!.root).toBe(`0x${proofs[2].blockHash}`);
    expect(proofs[3].anchor!.root).not.toBe(`0x${proofs[3].blockHash}`);

    const nodeKey = kit.runtime.services.chain.nodeKey.publicKeyHex;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-anchor-'));
    try {
      for (const [i, proof] of proofs.entries()) {
        expect(await verifyAnchoredProof(proof, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({ ok: true });
        fs.writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(proof));
        expect(await runScript([path.join(dir, `${i}.json`), anvil.url, nodeKey])).toMatchObject({ code: 0, out: expect.stringMatching(/^OK: item /) });
      }
      // A proof the previous version handed out named no rule: it is read as raw.
      const { leafRule: _named, ...unnamed } = proofs[0].anchor!;
      const old = { ...proofs[0], anchor: unnamed };
      expect(await verifyAnchoredProof(old, { rpcUrl: anvil.url, trustedNodeKeyHex: nodeKey })).toEqual({ ok: true });
      fs.writeFileSync(path.join(dir, 'old.json'), JSON.stringify(old));
      expect(await runScript([path.join(dir, 'old.json'), anvil.url, nodeKey])).toMatchObject({ code: 0 });
      // The rule is part of the check: the new anchor read by the old rule does not lead to its root.
      const misread = { ...proofs[3], anchor: { ...proofs[3].anchor!, leafRule: 'raw' as const } };
      expect(await verifyAnchoredProof(misread, { rpcUrl: anvil.url })).toEqual({ ok: false, reason: 'the block hash does not lead to the anchored root' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await kit.close();
    kit = undefined;

    expect(await kitCommand('chain', 'verify', '--anchors')).toMatchObject({
      code: 0,
      result: { ok: true, anchors: { ok: true, anchors: 3, lastAnchored: 4, contractHolds: 4 } },
    });
  }, 90_000);
});
