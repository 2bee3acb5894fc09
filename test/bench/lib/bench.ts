/**
 * What every scenario works with: the running instances, the demo app and merchants made with
 * `kit demo create`, load processes, the bare-Express yardstick and the rows of the table.
 */
import { Driver } from './rpc';
import { countersPer, readCounters, readCpuMs, type ProcCounters } from './proc';
import { latency, mean } from './stats';
import type { Fleet } from './fleet';
import type { BenchOptions } from './options';
import type { Row } from './report';
import type { Creds, RequestKind } from './requests';
import type { LoadAnswer, LoadArgs } from '../drivers/load';

/** What `npm run kit -- demo create` prints. */
export interface Demo {
  appId: string;
  appSecret: string;
  parentMerchantId: string;
  subMerchantId: string;
  password: string;
}

export interface LoadRun {
  /** Answers per second, all load processes together. */
  rate: number;
  p50: number;
  p99: number;
  /** Server CPU per answer, µs (the instances loaded, or the bare process). */
  cpuUs: number;
  answers: number;
  non2xx: number;
  errors: number;
  /** Requests each load process built (upload ids are numbered by it). */
  built: number[];
  /** Per answer, when the run was asked for them (`load`'s `counters`). */
  counters?: ProcCounters;
}

export interface Scenario {
  /** Short name for `npm run bench -- <filter>`. */
  id: string;
  name: string;
  /** Left out of a run without a filter (the soak: long by design). */
  onlyWhenNamed?: boolean;
  run(b: Bench): Promise<void>;
}

export class Bench {
  readonly rows: Row[] = [];
  private readonly loaders: Driver[] = [];
  private readonly others: Driver[] = [];
  /** The bare route's processes (the first is the yardstick; a second measures what a second process costs). */
  private readonly bareProcesses: Array<{ driver: Driver; url: string; warm: boolean }> = [];
  private receiver?: Driver;
  /** Next signature timestamp: every signed request of the run gets its own. */
  private clock = Date.now() - 250_000;
  private lastBaseline?: LoadRun;
  readonly baselines: LoadRun[] = [];

  constructor(
    readonly opts: BenchOptions,
    readonly fleet: Fleet,
    readonly demo: Demo,
  ) {}

  get creds(): Creds {
    return { appId: this.demo.appId, appSecret: this.demo.appSecret };
  }

  get postgres(): boolean {
    return !!this.opts.databaseUrl;
  }

  report(row: Row): void {
    this.rows.push(row);
    const figures = [
      row.rate && `${Math.round(row.rate.value)} ${row.rate.unit}`,
      row.p50 !== undefined && `p50 ${row.p50.toFixed(1)} ms`,
      row.p99 !== undefined && `p99 ${row.p99.toFixed(1)} ms`,
      row.cpuUs !== undefined && `CPU ${Math.round(row.cpuUs)} µs/req`,
      row.notes,
    ].filter(Boolean);
    console.log(`  ${row.scenario}: ${figures.join(', ')}`);
  }

  /** A driver process for the scenario; stopped by `release()`. */
  driver(name: string): Driver {
    const d = Driver.start(name);
    this.others.push(d);
    return d;
  }

  async release(): Promise<void> {
    await Promise.all(this.others.splice(0).map((d) => d.stop()));
  }

  /**
   * Points the demo shop's callbacks at a receiver process that stays up for the whole run, as a
   * shop's backend would be: every payment of the run sends its callback (section 6).
   */
  async prepare(): Promise<void> {
    this.receiver = Driver.start('receiver');
    const { url } = await this.receiver.call<{ url: string }>('start', { creds: this.creds, mode: 'ok' });
    const m = Driver.start('merchant');
    try {
      await m.call('callbackUrl', { url: this.fleet.urls[0], creds: this.creds, merchantId: this.demo.subMerchantId, notifyCallbackUrl: url });
    } finally {
      await m.stop();
    }
  }

  async close(): Promise<void> {
    await this.release();
    const standing = [...this.bareProcesses.map((p) => p.driver), this.receiver].filter((d): d is Driver => d !== undefined);
    await Promise.all([...this.loaders.splice(0), ...standing].map((d) => d.stop()));
  }

  /**
   * autocannon from one load process per target URL, `connections` shared among them, for the
   * run's duration (`request` may differ per process and for the warm-up, e.g. upload ids); CPU per answer from `opts.cpu` (default: every instance).
   */
  async load(
    targets: string[],
    request: RequestKind | ((process: number, warmup: boolean) => RequestKind),
    opts: { connections?: number; cpu?: () => number; warmup?: boolean; counters?: () => ProcCounters[] } = {},
  ): Promise<LoadRun> {
    while (this.loaders.length < targets.length) this.loaders.push(Driver.start('load'));
    const connections = opts.connections ?? 50;
    // A second of the same load first, unmeasured: the code paths are compiled before the clock starts.
    if (opts.warmup) await this.run(targets, request, connections, Math.min(1, this.opts.duration / 3), true);
    const cpu = opts.cpu ?? (() => this.fleet.cpuMs());
    const cpuBefore = cpu();
    const countersBefore = opts.counters?.();
    const parts = await this.run(targets, request, connections, this.opts.duration, false);
    const cpuMs = cpu() - cpuBefore;
    const answers = parts.reduce((n, p) => n + p.answers, 0);
    const counters = countersBefore && countersPer(countersBefore, opts.counters!(), answers);
    const lat = latency(parts.map((p) => p.latencies));
    return {
      rate: parts.reduce((r, p) => r + p.answers / (p.elapsedMs / 1000), 0),
      p50: lat.p50,
      p99: lat.p99,
      cpuUs: answers ? (cpuMs * 1000) / answers : NaN,
      answers,
      non2xx: parts.reduce((n, p) => n + p.non2xx, 0),
      errors: parts.reduce((n, p) => n + p.errors + p.timeouts, 0),
      built: parts.map((p) => p.built),
      counters,
    };
  }

  private async run(
    targets: string[],
    request: RequestKind | ((process: number, warmup: boolean) => RequestKind),
    connections: number,
    duration: number,
    warmup: boolean,
  ): Promise<LoadAnswer[]> {
    const from = Math.max(this.clock, Date.now() - 250_000);
    const parts = await Promise.all(
      targets.map((url, i) =>
        this.loaders[i].call<LoadAnswer>('run', {
          url,
          duration,
          connections: Math.max(1, Math.round(connections / targets.length)),
          request: typeof request === 'function' ? request(i, warmup) : request,
          creds: this.creds,
          clock: { from: from + i, step: targets.length },
        } satisfies LoadArgs),
      ),
    );
    this.clock = Math.max(...parts.map((p) => p.clockLatest)) + 1;
    return parts;
  }

  /** One run against the bare Express route, in its own process: the yardstick of every ratio. */
  async bare(): Promise<LoadRun> {
    const run = await this.bareSpread(1);
    this.baselines.push(run);
    console.log(`  baseline: ${Math.round(run.rate)} req/s, p99 ${run.p99.toFixed(1)} ms, CPU ${Math.round(run.cpuUs)} µs/req`);
    return run;
  }

  /**
   * The bare route as `processes` processes of their own, the same 50 connections spread over them,
   * CPU per answer of all of them: what another process costs on this machine before any of the
   * kit's own work (the yardstick of a second instance).
   */
  async bareSpread(processes: number): Promise<LoadRun> {
    while (this.bareProcesses.length < processes) {
      const driver = Driver.start('bare');
      this.bareProcesses.push({ driver, url: (await driver.call<{ url: string }>('start')).url, warm: false });
    }
    const used = this.bareProcesses.slice(0, processes);
    const pids = used.map((p) => p.driver.pid);
    const warmup = used.some((p) => !p.warm);
    for (const p of used) p.warm = true;
    return this.load(
      used.map((p) => p.url),
      { kind: 'bare' },
      { cpu: () => pids.reduce((sum, pid) => sum + readCpuMs(pid), 0), warmup, counters: () => pids.map(readCounters) },
    );
  }

  /**
   * Measures the bare route right before and right after `measure` (a scenario), and sets each new
   * row's ratios against the mean of the two: on a shared machine the speed drifts during a run.
   */
  async withBaseline(measure: () => Promise<void>): Promise<void> {
    const before = this.lastBaseline ?? (await this.bare());
    const first = this.rows.length;
    await measure();
    const after = await this.bare();
    this.lastBaseline = after;
    againstBare(this.rows.slice(first), { rate: mean([before.rate, after.rate]), cpuUs: mean([before.cpuUs, after.cpuUs]) });
  }
}

/**
 * Sets rows' ratios to the bare route (`bare`: its mean rate and CPU per request around them) and
 * judges their targets on it: rates only of rows in requests, CPU of those and of notifications.
 */
export function againstBare(rows: Row[], bare: { rate: number; cpuUs: number }): void {
  for (const row of rows) {
    // A notification is no request of the bare route's kind: its rate is not compared, its CPU is.
    if (row.rate?.unit === 'notifications/s' && row.cpuUs !== undefined) row.cpuRatio = bare.cpuUs / row.cpuUs;
    if (row.maxCpuTimes !== undefined && row.cpuUs !== undefined) row.met = (row.met ?? true) && row.cpuUs <= row.maxCpuTimes * bare.cpuUs;
    if (row.rate?.unit !== 'req/s') continue;
    row.ratio = row.rate.value / bare.rate;
    if (row.cpuUs !== undefined) row.cpuRatio = bare.cpuUs / row.cpuUs;
    if (row.minRatio !== undefined && row.met === undefined) row.met = row.ratio >= row.minRatio;
  }
}
