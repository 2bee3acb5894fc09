/**
 * Opens the database: a SQLite file in DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
 * One Kysely code path serves both.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, sql } from 'kysely';
import { OwnSchemaPostgresDialect } from './pg-schema-dialect';
import { BetterSqliteDialect } from './sqlite-dialect';
import { namePreparedStatements } from './prepared';
import { BoundedPool } from './bounded-pool';
import { countQueries, type StatementCount } from './statement-count';
import type { Database } from './schema';
import type { Dialect } from './dialect';
import { KIT_MIGRATIONS, type MigrationSet } from './migrations';
import { ensurePrivateDir } from '../security/private-dir';

// int8 (Unix milliseconds, amounts) as numbers: every value we store fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * TCP keepalive on every connection to PostgreSQL, after this long idle: a connection whose server
 * is gone (a partition, a failover, a reboot) fails by itself instead of lasting until the next
 * statement sent on it, and a firewall or NAT between keeps the connection. The server's own side
 * is the operator's to set (docs/operations.md, "A network partition").
 */
const KEEPALIVE_IDLE_MS = 10_000;
const KEEPALIVE = { keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS } as const;

export interface DbHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL only: the pool (Kysely's too), for LISTEN/NOTIFY and advisory locks outside Kysely. */
  pool?: BoundedPool;
  /** PostgreSQL schema in use (LISTEN channels are namespaced by it). */
  schema?: string;
  /** SQLite only: the connection itself (pragmas; the tests fill the disk or make it read-only through it). */
  sqlite?: SQLite.Database;
  /** Statements sent to the database so far (round trips on PostgreSQL). */
  statements: StatementCount;
  close(): Promise<void>;
}

export interface DbOptions {
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /**
   * Longest time one statement may take (PostgreSQL: `statement_timeout` on the server, and on the
   * client one timer for the wait for a connection and the statement run on it, for a server that
   * stops answering: `bounded-pool.ts`; SQLite: the busy wait). Unset: no bound (migrations).
   */
  statementTimeoutMs?: number;
}

export async function openDatabase(opts: DbOptions): Promise<DbHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.schema, opts.poolSize ?? 10, opts.statementTimeoutMs);
  ensurePrivateDir(opts.dataDir);
  const file = path.join(opts.dataDir, 'kit.sqlite');
  ownerOnly(file);
  const raw = new SQLite(file);
  // WAL with synchronous=NORMAL: a committed transaction survives a crash of the process;
  // only a power loss can drop the last moments of commits.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma(`busy_timeout = ${Math.round(opts.statementTimeoutMs ?? 5000)}`);
  raw.pragma('foreign_keys = ON');
  // SQLite's own default page cache (2 MB) instead of better-sqlite3's 16 MB: the cache fills up
  // with any database past that size and is kept for the process's life, while the pages it would
  // hold are in the OS page cache anyway (the RSS it saves, at no CPU cost: docs/performance.md,
  // "Where the RSS after a burst goes").
  raw.pragma('cache_size = -2000');
  const statements: StatementCount = { count: 0, named: 0 };
  const dialect = new BetterSqliteDialect(raw, statements);
  const db = new Kysely<Database>({ dialect });
  return { db, dialect: 'sqlite', sqlite: raw, statements, close: () => db.destroy() };
}

/**
 * The database holds sealed secrets, password hashes and every order: readable by its owner only,
 * like the key files beside it. SQLite creates its WAL and shared-memory files with the database
 * file's permissions, so it is enough to create (or fix) the file itself before opening it; files
 * left by an older version are fixed too.
 */
function ownerOnly(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(f, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

async function openPostgres(url: string, schema: string | undefined, poolSize: number, timeoutMs: number | undefined): Promise<DbHandle> {
  if (schema) {
    const admin = new pg.Client({ connectionString: url, ...KEEPALIVE, ...(timeoutMs ? { connectionTimeoutMillis: timeoutMs } : {}) });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const options = [schema ? `-c search_path="${schema}"` : '', timeoutMs ? `-c statement_timeout=${Math.round(timeoutMs)}` : ''].filter(Boolean).join(' ');
  const pool = new BoundedPool(
    {
      connectionString: url,
      max: poolSize,
      options: options || undefined,
      ...KEEPALIVE,
      // A connection that cannot be opened within the bound is given up (the pool's own timer bounds the call).
      ...(timeoutMs ? { connectionTimeoutMillis: timeoutMs } : {}),
    },
    timeoutMs,
  );
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // The same for a client checked out but between queries when its connection drops (the database
  // going away): without a listener its 'error' would end the process. A query running on it fails
  // on its own; the pool throws the broken client away when it is released.
  const statements: StatementCount = { count: 0, named: 0 };
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // Innermost, so a statement run again by its text after a refused named one counts twice.
    countQueries(client, statements);
    namePreparedStatements(client);
  });
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    pool,
    schema: schema ?? 'public',
    statements,
    close: () => db.destroy(),
  };
}

/**
 * Brings the schema up to date: the service's migrations, then the further sets given (the
 * sandbox's when SANDBOX_ENABLED). On PostgreSQL an advisory lock keeps concurrent starts in line.
 */
export async function migrate(handle: DbHandle, extra: readonly MigrationSet[] = []): Promise<void> {
  const sets = [KIT_MIGRATIONS, ...extra];
  // Up to date is the usual case: then starting (the service, every `kit` command) only reads, so
  // it never waits for, or holds, a write lock another process has.
  if ((await Promise.all(sets.map((set) => isCurrent(handle, set)))).every(Boolean)) return;
  // The Migrator takes any schema; the migrations themselves see `Kysely<unknown>` (they predate today's `Database`).
  const runOn = async (db: Kysely<Database>) => {
    for (const set of sets) {
      // Kysely looks for its own tables in every schema unless told which: pin it to ours, or another
      // schema's tables (a concurrent test run, another kit) make it skip creating them here.
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => set.migrations(handle.dialect) },
        migrationTableName: set.table,
        migrationLockTableName: `${set.table}_lock`,
        ...(handle.dialect === 'postgres' && handle.schema ? { migrationTableSchema: handle.schema } : {}),
      });
      const { error, results } = await migrator.migrateToLatest();
      const failed = results?.find((r) => r.status === 'Error');
      if (error || failed) throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
    }
  };
  if (handle.dialect !== 'postgres') return runOn(handle.db);
  await handle.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(hashtext(current_schema() || ':migrate'))`.execute(conn);
    try {
      await runOn(conn);
    } finally {
      await sql`select pg_advisory_unlock(hashtext(current_schema() || ':migrate'))`.execute(conn);
    }
  });
}

async function isCurrent(handle: DbHandle, set: MigrationSet): Promise<boolean> {
  try {
    const table = handle.dialect === 'postgres' && handle.schema ? sql.table(`${handle.schema}.${set.table}`) : sql.table(set.table);
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(handle.db);
    const applied = new Set(rows.map((r) => r.name));
    return Object.keys(set.migrations(handle.dialect)).every((name) => applied.has(name));
  } catch {
    return false;
  }
}
