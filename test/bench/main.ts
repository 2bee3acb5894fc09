/**
 * `npm run bench [-- <filter>]`: measures the service as it runs in production. The service runs
 * in its own process(es), started as `npm start` starts it, on a fresh SQLite folder or (with
 * BENCH_DATABASE_URL) a fresh PostgreSQL schema, BENCH_INSTANCES of them on the same database.
 * Load comes from separate processes; memory and CPU are read from the service's processes. Writes
 * one table for the run into docs/performance.md (and prints it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Bench, type Demo } from './lib/bench';
import { Fleet, REPO, SERVICE_SETTINGS, serviceArgs } from './lib/fleet';
import { describeMachine, loadAverage } from './lib/machine';
import { configurationKey, OptionsError, parseOptions } from './lib/options';
import { renderTable, updateDocument, type Row } from './lib/report';
import { mean, round } from './lib/stats';
import { choose } from './scenarios';

const INTRO = `# Performance

Measured by \`npm run bench\`; see "How to run the bench" below. The tables are written by the bench.
`;

async function main() {
  const opts = parseOptions(process.argv.slice(2), process.env);
  const chosen = choose(opts.filter);
  if (chosen.length === 0) throw new OptionsError(`no scenario matches "${opts.filter}"`);
  const started = Date.now();
  const loadAtStart = loadAverage();
  const backend = opts.databaseUrl ? 'PostgreSQL' : 'SQLite';
  console.log(`bench: ${chosen.length} scenario(s), ${backend}, ${opts.instances} instance(s), protocol ${opts.protocol}, ${opts.duration} s per load run`);

  const fleet = await Fleet.start(opts);
  let bench: Bench | undefined;
  let logged = 0;
  const interrupted = () => {
    console.error('interrupted: stopping the service processes');
    void Promise.allSettled([bench?.close(), fleet.close()]).then(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const demo = await fleet.kit<Demo>('demo', 'create', '--password', 'bench-password');
    bench = new Bench(opts, fleet, demo);
    await bench.prepare();
    for (const s of chosen) {
      console.log(`${s.name}`);
      try {
        await bench.withBaseline(() => s.run(bench!));
      } catch (e) {
        console.error(e);
        bench.report({ scenario: s.name, met: false, notes: `failed: ${(e as Error).message.split('\n')[0]}` });
        await bench.release();
      }
    }
  } finally {
    await bench?.close();
    logged = fleet.logLines();
    await fleet.close();
  }

  const rows: Row[] = [...(bench.baselines.length ? [baselineRow(bench)] : []), ...bench.rows];
  const serverVersion = opts.databaseUrl ? await postgresVersion(opts.databaseUrl) : '';
  const table = renderTable(
    {
      date: new Date(started).toISOString().replace(/\.\d+Z$/, 'Z'),
      machine: describeMachine(),
      node: process.version,
      backend: `${backend}${serverVersion ? ` ${serverVersion}` : ''}`,
      instances: opts.instances,
      duration: opts.duration,
      elapsed: (Date.now() - started) / 1000,
      filter: opts.filter,
      service:
        `\`node ${serviceArgs().join(' ')}\` per instance with ` +
        Object.entries(SERVICE_SETTINGS)
          .map(([k, v]) => `${k}=${k === 'CALLBACK_RETRY_SCHEDULE' ? '2s,…' : v}`)
          .join(', ') +
        `, PAY_PROTOCOL=${opts.protocol}${opts.protocol === 'v3' ? ' (key pairs, ids and APIv3 key generated for the run, public-key mode)' : ''}` +
        `; ${logged} log lines written`,
      loadAverage: `${loadAtStart} at the start, ${loadAverage()} at the end`,
    },
    rows,
  );
  console.log(`\n${table}\n`);
  if (opts.output !== '-') {
    const file = path.resolve(REPO, opts.output);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    fs.writeFileSync(file, updateDocument(existing, (opts.filter === 'soak' ? 'soak-' : '') + configurationKey(opts), table, INTRO));
    console.log(`written to ${path.relative(process.cwd(), file)}`);
  }
}

function baselineRow(b: Bench): Row {
  const runs = b.baselines;
  const rates = runs.map((r) => r.rate);
  return {
    scenario: `bare Express 5 JSON route (yardstick, mean of ${runs.length} runs)`,
    rate: { value: mean(rates), unit: 'req/s' },
    p50: mean(runs.map((r) => r.p50)),
    p99: mean(runs.map((r) => r.p99)),
    cpuUs: mean(runs.map((r) => r.cpuUs)),
    ratio: 1,
    cpuRatio: 1,
    notes: `its own process, 50 connections; ${Math.round(Math.min(...rates))}–${Math.round(Math.max(...rates))} req/s (±${round(((Math.max(...rates) - Math.min(...rates)) / 2 / mean(rates)) * 100, 0)} %)`,
  };
}

async function postgresVersion(url: string): Promise<string> {
  const pg = await import('pg');
  const c = new pg.default.Client({ connectionString: url });
  try {
    await c.connect();
    return String((await c.query('show server_version')).rows[0].server_version).split(' ')[0];
  } catch {
    return '';
  } finally {
    await c.end().catch(() => undefined);
  }
}

main().catch((e) => {
  console.error(e instanceof OptionsError ? `bench: ${e.message}` : e);
  process.exit(1);
});
