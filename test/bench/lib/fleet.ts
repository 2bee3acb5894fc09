/**
 * The service as it runs in production: each instance is its own process started the way
 * `npm run server` starts it (`node server/run.mjs`: the compiled service, read from package.json), with
 * its environment set here.
 * Also the operator's `kit` command for setup, read-only SQL on the database for the few facts a
 * scenario cannot learn over HTTP, and the end of the run (SIGTERM, fresh data removed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { CONFIG_KEYS } from '../../../server/src/configuration';
import { devV3Material } from '@kit/sandbox';
import { readCounters, readCpuMs, readMemory, type Memory, type ProcCounters } from './proc';
import { sleep } from './rpc';
import type { BenchOptions } from './options';
import type { PlatformSide } from './notifications';

export const REPO = path.resolve(__dirname, '../../..');

/** The platform's v2 API key the bench signs notifications with (the service is started with it). */
export const PLATFORM_KEY = 'benchPlatformKeyBenchPlatformKey';

/** Settings the bench gives every instance; shown with the table. */
export const SERVICE_SETTINGS: Record<string, string> = {
  LOG_LEVEL: 'warn',
  WAIT_FOR_FINISH_HOLD: '55s',
  // Failed callbacks come back after 2 s, so the callback scenario can have a backlog due at once.
  CALLBACK_RETRY_SCHEDULE: Array(15).fill('2s').join(','),
  // The bench places thousands of orders and pays them a minute later: with the default first query
  // after 10 s every order was queried at the platform (sandbox) once or twice before its payment,
  // a load a shop's orders paid within seconds do not make, and a third of the statements counted
  // per notification (docs/performance.md, issue 34). Queries still run, after the scenarios.
  PAYMENT_QUERY_SCHEDULE: '30m,60m',
};

export interface Instance {
  index: number;
  url: string;
  pid: number;
  process: ChildProcess;
  log: string;
}

export class Fleet {
  readonly instances: Instance[] = [];
  private sqlite?: SQLite.Database;
  /** Snapshots written so far, by process id (the probe numbers them the same way). */
  private readonly snapshots = new Map<number, number>();
  private pgPool?: pg.Pool;

  private constructor(
    readonly opts: BenchOptions,
    readonly dataDir: string,
    readonly schema: string | undefined,
    readonly env: NodeJS.ProcessEnv,
    /** The payment platform's keys, matching the settings the instances run with: what the bench's notifications are made with. */
    readonly platform: PlatformSide,
  ) {}

  static async start(opts: BenchOptions): Promise<Fleet> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-bench-'));
    const schema = opts.databaseUrl ? `bench_${randomBytes(4).toString('hex')}` : undefined;
    // The caller's own service settings (a DATABASE_URL, a BASE_PATH…) must not leak into the run.
    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_KEYS.includes(k)));
    const { env: protocolEnv, platform } = protocolSettings(opts.protocol, dataDir);
    Object.assign(env, SERVICE_SETTINGS, protocolEnv, {
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      // The run's schema as the connections' application_name: how `databaseCpuMs` finds their server processes.
      ...(opts.databaseUrl ? { DATABASE_URL: withApplicationName(opts.databaseUrl, schema!), DATABASE_SCHEMA: schema } : {}),
    });
    const fleet = new Fleet(opts, dataDir, schema, env, platform);
    try {
      // One after the other: the first creates the schema, the master key and the node key the others share.
      for (let i = 0; i < opts.instances; i++) fleet.instances.push(await fleet.startInstance(i));
    } catch (e) {
      await fleet.close();
      throw e;
    }
    return fleet;
  }

  get urls(): string[] {
    return this.instances.map((i) => i.url);
  }

  get backend(): string {
    return this.opts.databaseUrl ? 'PostgreSQL' : 'SQLite';
  }

  private async startInstance(index: number): Promise<Instance> {
    const port = await freePort();
    const log = path.join(this.dataDir, `instance-${index}.log`);
    const out = fs.openSync(log, 'a');
    const heapProbe = this.opts.heapSnapshots ? ['--require', path.join(__dirname, 'heap-probe.cjs')] : [];
    const cpuProfile = this.opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(this.opts.cpuProfileDir)}`] : [];
    const child = spawn(process.execPath, [...heapProbe, ...cpuProfile, ...serviceArgs()], {
      cwd: REPO,
      env: { ...this.env, PORT: String(port), ...(this.opts.heapSnapshots ? { BENCH_HEAP_DIR: this.dataDir } : {}) },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    const url = `http://127.0.0.1:${port}`;
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = `${signal ?? code}`));
    for (const deadline = Date.now() + 60_000; ;) {
      if (exited !== undefined) throw new Error(`instance ${index} exited (${exited}) before it was ready:\n${tail(log)}`);
      if (Date.now() > deadline) throw new Error(`instance ${index} was not ready within 60 s:\n${tail(log)}`);
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await sleep(100);
    }
    return { index, url, pid: child.pid!, process: child, log };
  }

  /** `npm run kit -- <args>` on this run's database; returns the JSON it printed last. */
  async kit<T>(...args: string[]): Promise<T> {
    const child = spawn('npm', ['run', '--silent', 'kit', '--', ...args], { cwd: REPO, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    if (code !== 0) throw new Error(`npm run kit -- ${args.join(' ')} failed (${code}): ${err || out}`);
    const last = out.trim().split('\n').at(-1) ?? '';
    return JSON.parse(last) as T;
  }

  /** Read-only SQL, `$1`-style parameters on both databases. */
  async query<T>(text: string, params: unknown[] = []): Promise<T[]> {
    if (this.opts.databaseUrl) {
      this.pgPool ??= new pg.Pool({ connectionString: this.opts.databaseUrl, max: 2, options: `-c search_path="${this.schema}"` });
      return (await this.pgPool.query(text, params)).rows as T[];
    }
    this.sqlite ??= new SQLite(path.join(this.dataDir, 'kit.sqlite'), { readonly: true, fileMustExist: true });
    return this.sqlite.prepare(text.replace(/\$\d+/g, '?')).all(...params) as T[];
  }

  /** CPU time (ms) the given instances (default: all) have used so far. */
  cpuMs(indexes: readonly number[] = this.instances.map((i) => i.index)): number {
    return indexes.reduce((sum, i) => sum + readCpuMs(this.instances[i].pid), 0);
  }

  /**
   * CPU time (ms) the PostgreSQL server processes of the instances' connections have used so far, by
   * process id (read from `/proc`: a server on this machine only; undefined otherwise, or on SQLite).
   * A connection closed meanwhile takes its time with it: compare the ids of two readings.
   */
  async databaseCpuMs(): Promise<Map<number, number> | undefined> {
    if (!this.opts.databaseUrl) return undefined;
    const rows = await this.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [this.schema]);
    const cpu = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        cpu.set(pid, readCpuMs(pid));
      } catch {
        return undefined; // not a process of this machine
      }
    }
    return cpu;
  }

  /** Every instance's CPU times, system calls and context switches so far (`proc.ts`). */
  counters(): ProcCounters[] {
    return this.instances.map((i) => readCounters(i.pid));
  }

  /**
   * Statements the instances have sent to the database so far (`kit_db_statements_total`, BEGIN and
   * COMMIT included: on PostgreSQL each is a round trip); undefined when an instance does not count them.
   */
  async statements(): Promise<number | undefined> {
    let sum = 0;
    for (const url of this.urls) {
      const text = await (await fetch(`${url}/metrics`)).text();
      const m = /^kit_db_statements_total (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
      if (!m) return undefined;
      sum += Number(m[1]);
    }
    return sum;
  }

  memory(index: number): Memory {
    return readMemory(this.instances[index].pid);
  }

  /**
   * Waits until the instances have been idle (under 3 % of a core) for `quietMs`, i.e. have
   * processed everything sent to them; gives up after `timeoutMs`.
   */
  async settle(indexes: readonly number[] = this.instances.map((i) => i.index), quietMs = 400, timeoutMs = 60_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const before = this.cpuMs(indexes);
      await sleep(quietMs);
      if (this.cpuMs(indexes) - before < quietMs * 0.03 * indexes.length + 10) return true;
    }
    return false;
  }

  /** Has instance `index` write a heap snapshot (BENCH_HEAP_SNAPSHOTS runs only); returns its file. */
  async heapSnapshot(index: number): Promise<string> {
    const { pid } = this.instances[index];
    const n = this.snapshots.get(pid) ?? 0;
    this.snapshots.set(pid, n + 1);
    const file = path.join(this.dataDir, `${pid}-${n}.heapsnapshot`);
    this.instances[index].process.kill('SIGUSR2');
    for (const deadline = Date.now() + 300_000; !fs.existsSync(file); await sleep(200)) {
      if (Date.now() > deadline) throw new Error(`instance ${index} wrote no heap snapshot`);
    }
    return file;
  }

  /** Stops (SIGSTOP) or resumes (SIGCONT) every instance: nothing runs in them meanwhile. */
  pause(paused: boolean): void {
    for (const i of this.instances) i.process.kill(paused ? 'SIGSTOP' : 'SIGCONT');
  }

  /** Lines the instances logged (warnings and errors at the bench's log level). */
  logLines(): number {
    return this.instances.reduce((n, i) => n + (fs.existsSync(i.log) ? fs.readFileSync(i.log, 'utf8').split('\n').filter(Boolean).length : 0), 0);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.instances.map(async (i) => {
        if (i.process.exitCode !== null || i.process.signalCode !== null) return;
        const gone = new Promise<void>((r) => i.process.once('exit', () => r()));
        i.process.kill('SIGCONT');
        i.process.kill('SIGTERM');
        const kill = setTimeout(() => i.process.kill('SIGKILL'), 20_000);
        await gone;
        clearTimeout(kill);
      }),
    );
    // The data folder goes; what the instances logged (warnings and errors) is shown first.
    for (const i of this.instances) {
      const lines = fs.existsSync(i.log) ? fs.readFileSync(i.log, 'utf8').trim() : '';
      if (lines) console.error(`instance ${i.index + 1} logged (last lines):\n${tail(i.log, 10)}`);
    }
    this.sqlite?.close();
    await this.pgPool?.end();
    if (this.opts.databaseUrl && this.schema) {
      const admin = new pg.Client({ connectionString: this.opts.databaseUrl });
      await admin.connect();
      try {
        await admin.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
      } finally {
        await admin.end();
      }
    }
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * The payment settings of the instances and the platform's side of them. v2: the shared API key. v3
 * (the service's default protocol): a merchant key pair, a platform key pair with its
 * `PUB_KEY_ID_…`, a certificate serial and an APIv3 key generated into the run's data folder by the
 * sandbox's development material (`devV3Material` of `@kit/sandbox`), given to the instances as explicit settings
 * (public-key mode), as a merchant's configuration would; the in-process sandbox reads the same files.
 */
export function protocolSettings(protocol: BenchOptions['protocol'], dataDir: string): { env: Record<string, string>; platform: PlatformSide } {
  const v2 = { PAY_SP_KEY: PLATFORM_KEY };
  if (protocol === 'v2') return { env: { ...v2, PAY_PROTOCOL: 'v2' }, platform: { protocol, v2Key: PLATFORM_KEY } };
  const m = devV3Material(dataDir);
  return {
    env: { ...v2, PAY_PROTOCOL: 'v3', ...m.settings },
    platform: {
      protocol,
      v2Key: PLATFORM_KEY,
      v3: {
        privateKeyPem: m.platform.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        publicKeyId: m.platform.publicKeyId,
        apiV3Key: m.settings.PAY_V3_KEY,
      },
    },
  };
}

/**
 * The service's command line as `npm run server` has it (`exec node server/run.mjs`, the compiled service,
 * what `npm start` runs after building the front ends), so a flag added there is measured too.
 * `exec` only makes the shell give way to node (signals reach the service); it is left out here.
 */
export function serviceArgs(): string[] {
  const scripts = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts as Record<string, string>;
  const words = scripts.server
    .trim()
    .split(/\s+/)
    .filter((w, i) => !(i === 0 && w === 'exec'));
  if (words[0] !== 'node' || words.some((w) => /[&|;<>$`]/.test(w))) throw new Error(`cannot run the "server" script "${scripts.server}" without a shell`);
  return words.slice(1);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function tail(file: string, lines = 20): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** The database URL with `application_name` set (a setting node-postgres reads from the URL). */
function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}
