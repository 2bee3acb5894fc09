/** `kit chain verify` over a real ledger: clean, then each kind of tampering is reported (exit 1). */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { runKit } from '../../src/kit/main';
import { i2c, settle, upload } from './chain-helpers';

const ROOT = path.resolve(__dirname, '../../..');

describeEachBackend('chain verify', (backend) => {
  let kit: TestKit;
  let env: NodeJS.ProcessEnv;

  const verify = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runKit(['chain', 'verify', ...args], env, (l) => lines.push(l));
    return { code, report: JSON.parse(lines[0]) };
  };
  /** Applies a change to the database, runs verify, and undoes the change. */
  const tampered = async (change: string, undo: string) => {
    const { db } = kit.runtime.db;
    await sql.raw(change).execute(db);
    try {
      return await verify();
    } finally {
      await sql.raw(undo).execute(db);
    }
  };

  beforeAll(async () => {
    env = backend.env();
    kit = await startTestKit(backend, env);
    const app = await kit.newApp();
    const wallet = await kit.newApp();
    for (let round = 0; round < 3; round++) {
      const items = Array.from({ length: 5 }, (_, i) => ({ type: 'record', args: { id: `v-${round}-${i}`, round } }));
      await upload(app.client, items);
      await settle(
        app.client,
        items.map((it) => i2c('record', it.args.id)),
      );
    }
    await upload(app.client, [
      { type: 'points.create', args: { id: 'c', tokenId: 'PTS', name: 'P' } },
      { type: 'points.issue', args: { id: 'i', tokenId: 'PTS', userAppId: wallet.appId, userId: 'u', amount: '10' } },
    ]);
    await settle(app.client, [i2c('points.create', 'c'), i2c('points.issue', 'i')]);
    const code = await wallet.client.deductionCode({
      tokenId: 'PTS',
      tokenAppId: app.appId,
      userAppId: wallet.appId,
      userId: 'u',
      maxAmount: 5,
      uuid: randomBytes(16).toString('hex'),
    });
    await upload(app.client, [{ type: 'chainPay', args: { id: 'pay', code: code.data.chainLinks[0], amount: '2' } }]);
    const settled = await settle(app.client, [i2c('points.issue', 'i'), i2c('chainPay', 'pay')]);
    expect(settled.every((r) => r.id)).toBe(true);
  });
  afterAll(() => kit.close());

  test('an untouched ledger verifies', async () => {
    const { code, report } = await verify();
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, nodePublicKey: kit.runtime.services.chain.nodeKey.publicKeyHex });
    expect(report.blocks).toBeGreaterThanOrEqual(4);
    expect(report.transactions).toBe(18);
  });

  test('changed item content', async () => {
    const { code, report } = await tampered(
      `update chain_items set content = replace(content, '"round":1', '"round":7') where local_id = 'v-1-2'`,
      `update chain_items set content = replace(content, '"round":7', '"round":1') where local_id = 'v-1-2'`,
    );
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.problem.detail).toMatch(/does not hash to its on-chain id/);
  });

  test('content and on-chain id changed together: the transaction hash gives it away', async () => {
    const { db } = kit.runtime.db;
    const row = await db.selectFrom('chain_items').selectAll().where('local_id', '=', 'v-2-0').executeTakeFirstOrThrow();
    const content = row.content.replace('"round":2', '"round":9');
    const { createHash } = await import('node:crypto');
    const chainId = createHash('sha256').update(content).digest('hex');
    await db.updateTable('chain_items').set({ content, chain_id: chainId }).where('seq', '=', row.seq).execute();
    try {
      const { code, report } = await verify();
      expect(code).toBe(1);
      expect(report.problem).toMatchObject({ block: row.block_num, seq: row.seq, detail: expect.stringMatching(/chainTrxId/) });
    } finally {
      await db.updateTable('chain_items').set({ content: row.content, chain_id: row.chain_id }).where('seq', '=', row.seq).execute();
    }
  });

  test('an item taken out of its block', async () => {
    const { db } = kit.runtime.db;
    const row = await db.selectFrom('chain_items').selectAll().where('local_id', '=', 'v-0-3').executeTakeFirstOrThrow();
    await db.updateTable('chain_items').set({ status: 'failed', block_num: null }).where('seq', '=', row.seq).execute();
    try {
      const { code, report } = await verify();
      expect(code).toBe(1);
      expect(report.problem.detail).toMatch(/records \d+ transactions but \d+ items belong to it/);
    } finally {
      await db.updateTable('chain_items').set({ status: row.status, block_num: row.block_num }).where('seq', '=', row.seq).execute();
    }
  });

  test('a block root, link, count, signer or signature changed, or a block removed', async () => {
    const { db } = kit.runtime.db;
    const original = await db.selectFrom('chain_blocks').selectAll().where('number', '=', 3).executeTakeFirstOrThrow();
    const cases: Array<[Partial<typeof original>, RegExp]> = [
      [{ merkle_root: 'a'.repeat(64) }, /stored hash does not match/],
      [{ signature: '00'.repeat(64) }, /signature is invalid/],
      [{ prev_hash: 'b'.repeat(64) }, /does not link/],
      [{ signer: 'c'.repeat(64) }, /not trusted/],
      [{ tx_count: original.tx_count + 1 }, /stored hash does not match/],
    ];
    for (const [patch, expected] of cases) {
      await db.updateTable('chain_blocks').set(patch).where('number', '=', 3).execute();
      try {
        const { code, report } = await verify();
        expect(code).toBe(1);
        expect(report.problem).toMatchObject({ block: 3, detail: expect.stringMatching(expected) });
      } finally {
        await db.updateTable('chain_blocks').set(original).where('number', '=', 3).execute();
      }
    }
    // A block removed from the middle.
    const block2 = await db.selectFrom('chain_blocks').selectAll().where('number', '=', 2).executeTakeFirstOrThrow();
    await db.deleteFrom('chain_blocks').where('number', '=', 2).execute();
    try {
      const { code, report } = await verify();
      expect(code).toBe(1);
      expect(report.problem.detail).toMatch(/block 2 is missing/);
    } finally {
      await db.insertInto('chain_blocks').values(block2).execute();
    }
    expect((await verify()).code).toBe(0);
  });

  test('a balance or spent code changed outside the ledger', async () => {
    const balance = await tampered(`update point_balances set balance = balance + 1`, `update point_balances set balance = balance - 1`);
    expect(balance.code).toBe(1);
    expect(balance.report.problem.detail).toMatch(/balance of .* is \d+ units but the ledger gives/);
    const { db } = kit.runtime.db;
    const rows = await db.selectFrom('point_spent_codes').selectAll().execute();
    expect(rows).toHaveLength(1);
    await db.deleteFrom('point_spent_codes').execute();
    try {
      const spent = await verify();
      expect(spent.code).toBe(1);
      expect(spent.report.problem.detail).toMatch(/spent deduction codes differ/);
    } finally {
      await db.insertInto('point_spent_codes').values(rows).execute();
    }
    expect((await verify()).code).toBe(0);
  });

  test('blocks signed by another key verify only when that key is trusted', async () => {
    const { db } = kit.runtime.db;
    const { keyFromSeed, nodeKeyFrom } = await import('../../src/chain/node-key');
    const { blockHash } = await import('@kit/shared');
    const other = nodeKeyFrom(keyFromSeed(randomBytes(32)));
    const last = await db.selectFrom('chain_blocks').selectAll().orderBy('number', 'desc').limit(1).executeTakeFirstOrThrow();
    const header = { number: last.number, prevHash: last.prev_hash, merkleRoot: last.merkle_root, time: last.time, txCount: last.tx_count };
    await db
      .updateTable('chain_blocks')
      .set({ signer: other.publicKeyHex, signature: other.signHeader(header) })
      .where('number', '=', last.number)
      .execute();
    try {
      expect(blockHash(header)).toBe(last.hash);
      const untrusted = await verify();
      expect(untrusted.code).toBe(1);
      expect(untrusted.report.problem).toMatchObject({ block: last.number, detail: expect.stringMatching(/not trusted/) });
      const trusted = await verify('--trust', other.publicKeyHex);
      expect(trusted.code).toBe(0);
      expect(trusted.report.signers).toEqual(expect.arrayContaining([other.publicKeyHex, kit.runtime.services.chain.nodeKey.publicKeyHex]));
    } finally {
      await db.updateTable('chain_blocks').set({ signer: last.signer, signature: last.signature }).where('number', '=', last.number).execute();
    }
  });

  test('`npm run kit -- chain verify` exits non-zero on a tampered ledger', async () => {
    const { db } = kit.runtime.db;
    // Asynchronous: the service in this process keeps running (and sealing) meanwhile.
    const cli = () =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn('npm', ['run', '--silent', 'kit', '--', 'chain', 'verify'], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'silent' } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    await sql.raw(`update chain_items set content = replace(content, '"round":0', '"round":5') where local_id = 'v-0-0'`).execute(db);
    try {
      const bad = await cli();
      expect(bad.status).toBe(1);
      expect(JSON.parse(bad.stdout.trim().split('\n').pop()!)).toMatchObject({ ok: false });
    } finally {
      await sql.raw(`update chain_items set content = replace(content, '"round":5', '"round":0') where local_id = 'v-0-0'`).execute(db);
    }
    const good = await cli();
    expect(good.status).toBe(0);
    expect(JSON.parse(good.stdout.trim().split('\n').pop()!)).toMatchObject({ ok: true });
  }, 90_000);
});
