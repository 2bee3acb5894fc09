/** Issue 2 scenarios: signed prepay creation, signed detail read, 2,000 held long-polls woken at once. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { encodeQuery, signRequest } from '@kit/shared';
import { cycle, load, percentile, presign, round, type BenchScenario } from '../harness';

const createPrepay: BenchScenario = {
  name: 'signed prepay creation (POST /submerchant-pay/)',
  async run(ctx) {
    const count = Math.max(50_000, ctx.baseline.rps * ctx.duration * 2);
    const reqs = presign(count, ctx.app, () => ({
      method: 'POST',
      path: '/submerchant-pay/',
      body: { subMerchantId: ctx.merchants.subId, totalAmount: '12.34', orderId: null },
    }));
    const r = await load({ url: ctx.url, duration: ctx.duration, next: cycle(reqs) });
    ctx.report({ scenario: this.name, rps: r.rps, p50: r.p50, p99: r.p99, ratio: r.rps / ctx.baseline.rps, extra: { non2xx: r.non2xx, target: '≥ 0.6' } });
  },
};

const readDetail: BenchScenario = {
  name: 'signed detail read (GET /submerchant-pay/prePay/<id>)',
  async run(ctx) {
    const order = await ctx.app.client.createPrepay({ subMerchantId: ctx.merchants.subId, totalAmount: '8.00' });
    const path = `/submerchant-pay/prePay/${order.prepayId}`;
    // Reads are not replay-guarded, so one signature (valid 300 s) serves the whole run.
    const q = signRequest({ method: 'GET', path, query: { waitForFinish: '0' } }, ctx.app);
    const r = await load({ url: ctx.url, duration: ctx.duration, method: 'GET', path: `${new URL(ctx.url).pathname.replace(/\/$/, '')}${path}?${encodeQuery(q)}` });
    ctx.report({ scenario: this.name, rps: r.rps, p50: r.p50, p99: r.p99, ratio: r.rps / ctx.baseline.rps, extra: { non2xx: r.non2xx, target: '≥ 0.7' } });
  },
};

const heldLongPolls: BenchScenario = {
  name: '2,000 held waitForFinish calls released together',
  early: true,
  async run(ctx) {
    const n = Number(process.env.BENCH_HOLDS ?? 2000);
    const { prepay, events } = ctx.runtime.services;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await prepay.create(ctx.app.appId, { subMerchantId: ctx.merchants.subId, totalAmount: '1.00' })).prepayId);
    const rssBefore = process.memoryUsage().rss;
    // The client runs in its own process so that the RSS below is the server's alone.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../clients/hold.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const done = new Promise<void>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`hold client exited ${code}`)))));
    child.stdin.end(JSON.stringify({ url: ctx.url, appId: ctx.app.appId, appSecret: ctx.app.appSecret, ids }));
    const deadline = Date.now() + 60_000;
    while (events.waiting < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const held = events.waiting;
    const rss = process.memoryUsage().rss;
    const released = new Map<string, number>();
    const now = () => performance.timeOrigin + performance.now();
    const db = ctx.runtime.db.db;
    await Promise.all(
      ids.map(async (id) => {
        await prepay.transition(db, id, 'active', 'finish', { payment_time: Date.now() });
        released.set(id, now());
        prepay.announce(id, 'finish');
      }),
    );
    await done;
    const answered = JSON.parse(out) as Record<string, number>;
    const waits = ids.map((id) => answered[id] - released.get(id)!).sort((a, b) => a - b);
    ctx.report({
      scenario: this.name,
      p50: round(percentile(waits, 50)),
      p99: round(percentile(waits, 99)),
      extra: { held, 'server RSS MB': Math.round(rss / 2 ** 20), 'RSS before holds MB': Math.round(rssBefore / 2 ** 20), target: 'p99 ≤ 200 ms, RSS ≤ 250 MB' },
    });
  },
};

export const coreScenarios: BenchScenario[] = [createPrepay, readDetail, heldLongPolls];
