/**
 * `npm run bench [-- name-filter]`: starts the service on a fresh SQLite data folder (or DATABASE_URL),
 * then every scenario between two measurements of a bare Express route, and prints one table of
 * ratios (each scenario against the mean of the baselines around it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KitClient } from '@kit/shared';
import { startRuntime } from '../../server/src/runtime';
import { load, startBaseline, round, type BenchContext, type BenchRow, type LoadResult } from './harness';
import { scenarios } from './scenarios';

async function main() {
  const filter = process.argv[2];
  const duration = Number(process.env.BENCH_DURATION ?? 10);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-bench-'));
  const runtime = await startRuntime({
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    WAIT_FOR_FINISH_HOLD: '55s',
  });
  const creds = await runtime.services.apps.create('bench');
  const client = new KitClient({ baseUrl: runtime.url, ...creds });
  const pw = 'bench-password';
  const pm = await client.createMerchant({ type: 'merchant', parameters: { displayName: 'Bench Parent', pw, appId: creds.appId } });
  const sm = await client.createMerchant({ type: 'subMerchant', parameters: { displayName: 'Bench Shop', pw, appId: creds.appId, parentMerchantId: pm.data.id } });

  const rows: BenchRow[] = [];
  const ctx: BenchContext = {
    url: runtime.url,
    runtime,
    app: { ...creds, client },
    merchants: { parentId: pm.data.id, subId: sm.data.id, pw },
    baseline: { rps: NaN, p99: NaN },
    duration,
    report(row) {
      rows.push(row);
      console.log(`${row.scenario}: ${JSON.stringify({ ...row, scenario: undefined, ratio: undefined })}`);
    },
  };
  const run = async (s: (typeof scenarios)[number]) => {
    try {
      await s.run(ctx);
    } catch (e) {
      ctx.report({ scenario: s.name, extra: { failed: (e as Error).message } });
    }
  };
  const chosen = scenarios.filter((s) => !filter || s.name.includes(filter));
  for (const s of chosen.filter((s) => s.early)) await run(s);

  // The baseline is measured right before and right after each scenario, and its ratios are taken
  // against the mean of the two: on a shared machine the speed drifts over a run of several minutes.
  const bare = await startBaseline();
  const baselines: LoadResult[] = [];
  const measureBaseline = async () => {
    const b = await load({ url: bare.url, duration, path: '/bare' });
    baselines.push(b);
    console.log(`baseline: ${b.rps} req/s, p99 ${b.p99} ms`);
    return b;
  };
  let before = await measureBaseline();
  for (const s of chosen.filter((s) => !s.early)) {
    ctx.baseline = { rps: before.rps, p99: before.p99 };
    const first = rows.length;
    await run(s);
    const after = await measureBaseline();
    const mean = (before.rps + after.rps) / 2;
    for (const row of rows.slice(first)) if (row.ratio !== undefined && row.rps !== undefined) row.ratio = row.rps / mean;
    before = after;
  }
  await bare.close();
  const avg = (k: 'rps' | 'p50' | 'p99') => Math.round(baselines.reduce((a, b) => a + b[k], 0) / baselines.length);
  const spread = `${Math.min(...baselines.map((b) => b.rps))}–${Math.max(...baselines.map((b) => b.rps))} req/s over ${baselines.length} runs`;
  rows.unshift({ scenario: 'bare Express JSON route (baseline, mean)', rps: avg('rps'), p50: avg('p50'), p99: avg('p99'), ratio: 1, extra: { range: spread } });
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  console.log(`\n| scenario | req/s | p50 ms | p99 ms | ratio to bare | notes |\n|---|---|---|---|---|---|`);
  for (const r of rows) {
    const notes = Object.entries(r.extra ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ');
    console.log(`| ${r.scenario} | ${r.rps ?? ''} | ${r.p50 ?? ''} | ${r.p99 ?? ''} | ${r.ratio === undefined ? '' : round(r.ratio, 2)} | ${notes} |`);
  }
  console.log(`\nnode ${process.version}, ${os.cpus().length} cores, ${duration} s per run, ${runtime.db.dialect}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
