/**
 * Several instances on one PostgreSQL database: each runs a sealer, the advisory lock lets one seal
 * at a time, and the ledger stays one unbroken chain. (SQLite serves a single process.)
 */
import { backends } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { KitClient } from '@kit/shared';
import { sql } from 'kysely';
import { i2c, settle, upload } from './chain-helpers';
import { waitFor } from '../support/wait';

const pg = backends().find((b) => b.name === 'postgres');
const describePg = pg ? describe : describe.skip;

describePg('two instances sealing one PostgreSQL ledger', () => {
  let a: TestKit;
  let b: TestKit;

  beforeAll(async () => {
    const env = pg!.env();
    // Same DATA_DIR: both load the same node key (in production: the same CHAIN_NODE_KEY).
    a = await startTestKit(pg!, { ...env, CHAIN_SEAL_INTERVAL: '50ms' });
    // One clock for both: moving it moves both instances' seal intervals.
    b = await startTestKit(pg!, { ...env, CHAIN_SEAL_INTERVAL: '50ms' }, { clock: a.clock });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await pg?.cleanup();
  });

  test('uploads to both confirm, concurrent seals never collide, and the chain verifies', async () => {
    const app = await a.newApp();
    const viaB = new KitClient({ baseUrl: b.url, appId: app.appId, appSecret: app.appSecret, clock: a.clock });
    const ids: string[] = [];
    const calls: Array<Promise<unknown>> = [];
    for (let call = 0; call < 20; call++) {
      const items = Array.from({ length: 25 }, (_, i) => ({ type: 'record', args: { id: `m-${call}-${i}` } }));
      ids.push(...items.map((it) => it.args.id));
      calls.push(upload(call % 2 ? viaB : app.client, items));
      // Extra seals racing the background sealers of both instances.
      calls.push(a.runtime.services.chain.sealer.sealOnce(), b.runtime.services.chain.sealer.sealOnce());
    }
    await Promise.all(calls);
    const results = await settle(
      app.client,
      ids.map((id) => i2c('record', id)),
      15_000,
    );
    expect(results.filter((r) => !r.chainTrxId)).toEqual([]);

    const blocks = await a.runtime.db.db.selectFrom('chain_blocks').select(['number', 'prev_hash', 'hash', 'tx_count']).orderBy('number').execute();
    blocks.forEach((blk, i) => {
      expect(blk.number).toBe(i + 1);
      if (i > 0) expect(blk.prev_hash).toBe(blocks[i - 1].hash);
    });
    expect(blocks.reduce((n, blk) => n + blk.tx_count, 0)).toBe(ids.length);
    expect(await b.runtime.services.chain.verify()).toMatchObject({ ok: true, transactions: ids.length });
  });

  test('while another instance holds the seal lock, a sealer seals nothing', async () => {
    const app = await a.newApp();
    const { db } = a.runtime.db;
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db.transaction().execute(async (trx) => {
      // The instances' sealers take the same lock for a moment every 50 ms: try until it is ours.
      await waitFor(
        async () => (await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtext(current_schema() || ':chain-seal')) as ok`.execute(trx)).rows[0].ok,
        'the seal lock free',
      );
      locked();
      await new Promise<void>((r) => (release = r));
    });
    await isLocked;
    try {
      await upload(app.client, [{ type: 'record', args: { id: 'locked-out' } }]);
      expect(await b.runtime.services.chain.sealer.sealOnce()).toEqual({ confirmed: 0, failed: 0, more: false });
      // Several seal intervals go by on both instances, and both sealers run what is due: none can seal.
      await a.advance(300);
      await b.settle();
      expect(await settle(app.client, [i2c('record', 'locked-out')], 0)).toEqual([{ id: '' }]);
    } finally {
      release();
      await holder;
    }
    const [r] = await settle(app.client, [i2c('record', 'locked-out')]);
    expect(r.chainTrxId).toMatch(/^[0-9a-f]{64}$/);
  });
});
