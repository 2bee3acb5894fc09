/** The bench's settings, from its command line and environment (pure: checked by the bench's unit test). */

export interface BenchOptions {
  /** Seconds per measured load run (BENCH_DURATION, default 10). */
  duration: number;
  /** Only scenarios whose name contains this text (`npm run bench -- <filter>`). */
  filter?: string;
  /** PostgreSQL server for every scenario (BENCH_DATABASE_URL); SQLite in a fresh folder otherwise. */
  databaseUrl?: string;
  /** Service processes on the same database (BENCH_INSTANCES, PostgreSQL only). */
  instances: number;
  /** Held `waitForFinish` calls of the memory scenario (BENCH_HOLDS, default 10,000). */
  holds: number;
  /** Heap snapshots of the holding instance around the held calls (BENCH_HEAP_SNAPSHOTS=1): where their memory goes. */
  heapSnapshots: boolean;
  /**
   * The payment platform's protocol the instances speak and the bench's notifications are sent in
   * (BENCH_PROTOCOL, default v3, the service's own default; `v2` for the merchants who have it).
   */
  protocol: 'v3' | 'v2';
  /**
   * A folder the instances write V8 CPU profiles to (BENCH_CPU_PROF; `node --cpu-prof`, which
   * NODE_OPTIONS does not allow): where a scenario's server CPU goes.
   */
  cpuProfileDir?: string;
  /** Where the table goes (BENCH_OUTPUT, default docs/performance.md; `-` prints only). */
  output: string;
}

export class OptionsError extends Error {}

function positiveNumber(env: NodeJS.ProcessEnv, key: string, fallback: number, integer: boolean): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new OptionsError(`${key} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return n;
}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const databaseUrl = env.BENCH_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new OptionsError(`BENCH_DATABASE_URL must be a postgres:// URL, got "${databaseUrl}"`);
  }
  const instances = positiveNumber(env, 'BENCH_INSTANCES', 1, true);
  if (instances > 1 && !databaseUrl) {
    throw new OptionsError(
      `BENCH_INSTANCES=${instances} needs BENCH_DATABASE_URL: several instances share one PostgreSQL database (SQLite is one process's file)`,
    );
  }
  if (instances > 2) throw new OptionsError(`BENCH_INSTANCES may be 1 or 2, got ${instances}`);
  const filter =
    argv
      .filter((a) => a !== '--')
      .join(' ')
      .trim() || undefined;
  const protocol = env.BENCH_PROTOCOL || 'v3';
  if (protocol !== 'v3' && protocol !== 'v2') throw new OptionsError(`BENCH_PROTOCOL may be v3 or v2, got "${protocol}"`);
  return {
    duration: positiveNumber(env, 'BENCH_DURATION', 10, false),
    filter,
    databaseUrl,
    instances,
    holds: positiveNumber(env, 'BENCH_HOLDS', 10_000, true),
    heapSnapshots: ['1', 'true', 'yes'].includes(env.BENCH_HEAP_SNAPSHOTS ?? ''),
    protocol,
    cpuProfileDir: env.BENCH_CPU_PROF || undefined,
    output: env.BENCH_OUTPUT || 'docs/performance.md',
  };
}

/** The configuration a table belongs to: one kept table per backend and instance count. */
export function configurationKey(o: Pick<BenchOptions, 'databaseUrl' | 'instances'>): string {
  return o.databaseUrl ? `postgresql-${o.instances}` : 'sqlite-1';
}
