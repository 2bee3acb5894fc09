/**
 * Issue 4 scenarios: upload throughput with 50-item calls, 500-item lookups, and the time from an
 * accepted upload to its confirmation (seal interval as configured, default 1 s).
 * Targets: ≥ 20,000 items/s accepted; 500-item lookup p99 ≤ 50 ms; upload-to-confirmed p99 ≤ 1.5 s.
 */
import { encodeQuery, signRequest, KitClient } from '@kit/shared';
import { sql } from 'kysely';
import { load, percentile, round, type BenchContext, type BenchScenario } from '../harness';

const ITEMS_PER_CALL = 50;

/** A signed request built when autocannon asks for it; `_t` steps by 1 ms so every signature is unique. */
function signer(ctx: BenchContext) {
  let t = Date.now();
  return (method: string, path: string, body: string) => {
    const q = signRequest({ method, path, body }, ctx.app, t++);
    return { method, path: `${path}?${encodeQuery(q)}`, body, headers: { 'content-type': 'application/json' } };
  };
}

let runTag = 0;

const uploadThroughput: BenchScenario = {
  name: 'chain upload, 50 items per call (POST /common-chain-upload/)',
  async run(ctx) {
    const tag = `u${Date.now().toString(36)}${runTag++}`;
    const sign = signer(ctx);
    let n = 0;
    const started = Date.now();
    const r = await load({
      url: ctx.url,
      duration: ctx.duration,
      connections: 16,
      next: () => {
        const call = n++;
        const items = [];
        for (let i = 0; i < ITEMS_PER_CALL; i++) items.push({ type: 'record', args: { id: `${tag}-${call}-${i}`, sku: 'A-1001', qty: i, note: 'bench' } });
        return sign('POST', '/common-chain-upload/', JSON.stringify({ items }));
      },
    });
    // Wait for the queue to drain, then read accept→block times of this run from the ledger itself.
    const db = ctx.runtime.db.db;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const row = await db.selectFrom('chain_items').select(sql<number>`count(*)`.as('n')).where('status', '=', 'pending').executeTakeFirst();
      if (Number(row?.n ?? 0) === 0 || Date.now() > deadline) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const drained = Date.now();
    const lags = (
      await db
        .selectFrom('chain_items as i')
        .innerJoin('chain_blocks as b', 'b.number', 'i.block_num')
        .select(sql<number>`b.time - i.created_at`.as('lag'))
        .where('i.local_id', 'like', `${tag}-%`)
        .execute()
    )
      .map((x) => Number(x.lag))
      .sort((a, b) => a - b);
    const blocks = await db.selectFrom('chain_blocks').select(sql<number>`max(tx_count)`.as('m')).executeTakeFirst();
    ctx.report({
      scenario: this.name,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      ratio: r.rps / ctx.baseline.rps,
      extra: {
        'items/s accepted': r.rps * ITEMS_PER_CALL,
        target: '≥ 20000 items/s',
        non2xx: r.non2xx,
        'items sealed': lags.length,
        'accept→block p50 ms': percentile(lags, 50),
        'accept→block p99 ms': percentile(lags, 99),
        'largest block': Number(blocks?.m ?? 0),
        'queue drained after load, s': round((drained - started) / 1000 - ctx.duration, 1),
      },
    });
  },
};

const lookup500: BenchScenario = {
  name: 'chain lookup of 500 items (POST /common-chain-upload/fetchOnChainIds)',
  async run(ctx) {
    const tag = `l${Date.now().toString(36)}${runTag++}`;
    const client: KitClient = ctx.app.client;
    const ids: string[] = [];
    for (let call = 0; call < 10; call++) {
      const items = Array.from({ length: ITEMS_PER_CALL }, (_, i) => ({ type: 'record', args: { id: `${tag}-${call}-${i}`, v: i } }));
      ids.push(...items.map((it) => it.args.id));
      await client.expect('pending', 'POST', '/common-chain-upload/', { body: { items } });
    }
    const query = ids.map((id) => ({ type: 'record', id, queryType: 'i2c' }));
    for (const deadline = Date.now() + 10_000; ; ) {
      const res = await client.call<{ items: Array<{ id?: string }> }>('POST', '/common-chain-upload/fetchOnChainIds', { body: { items: query } });
      if (res.body.items.every((x) => x.id) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const body = JSON.stringify({ items: query });
    const sign = signer(ctx);
    const next = () => sign('POST', '/common-chain-upload/fetchOnChainIds', body);
    for (const connections of [1, 4]) {
      const r = await load({ url: ctx.url, duration: ctx.duration, connections, next });
      ctx.report({
        scenario: `${this.name}, ${connections} connection${connections > 1 ? 's' : ''}`,
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        ratio: r.rps / ctx.baseline.rps,
        extra: { target: 'p99 ≤ 50 ms', non2xx: r.non2xx, 'items/s looked up': r.rps * 500 },
      });
    }
  },
};

const uploadToConfirmed: BenchScenario = {
  name: 'chain upload → confirmed (1-item calls at random moments, lookup polled every 10 ms)',
  async run(ctx) {
    const tag = `c${Date.now().toString(36)}${runTag++}`;
    const client: KitClient = ctx.app.client;
    const samples: number[] = [];
    const until = Date.now() + ctx.duration * 1000;
    let n = 0;
    // Eight writers, each uploading, polling its item until confirmed, then pausing up to a second
    // at random, so that uploads fall at every point of the sealer's cycle.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < until) {
          const id = `${tag}-${n++}`;
          await client.expect('pending', 'POST', '/common-chain-upload/', { body: { items: [{ type: 'record', args: { id } }] } });
          const accepted = performance.now();
          for (;;) {
            const res = await client.call<{ items: Array<{ id?: string }> }>('POST', '/common-chain-upload/fetchOnChainIds', {
              body: { items: [{ type: 'record', id, queryType: 'i2c' }] },
            });
            if (res.body.items[0].id) break;
            await new Promise((r) => setTimeout(r, 10));
          }
          samples.push(performance.now() - accepted);
          await new Promise((r) => setTimeout(r, Math.random() * 1000));
        }
      }),
    );
    samples.sort((a, b) => a - b);
    ctx.report({
      scenario: this.name,
      p50: round(percentile(samples, 50)),
      p99: round(percentile(samples, 99)),
      extra: { samples: samples.length, target: 'p99 ≤ 1500 ms', 'seal interval ms': ctx.runtime.config.CHAIN_SEAL_INTERVAL },
    });
  },
};

export const chainScenarios: BenchScenario[] = [uploadThroughput, lookup500, uploadToConfirmed];
