/**
 * Opens the database: a SQLite file in DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
 * One Kysely code path serves both.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { BetterSqliteDialect } from './sqlite-dialect';
import type { Database } from './schema';
import type { Dialect } from './dialect';
import { migrations } from './migrations';

// int8 (Unix milliseconds, amounts) as numbers: every value we store fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DbHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL only: a pool for LISTEN/NOTIFY and advisory locks outside Kysely. */
  pool?: pg.Pool;
  /** PostgreSQL schema in use (LISTEN channels are namespaced by it). */
  schema?: string;
  close(): Promise<void>;
}

export interface DbOptions {
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
}

export async function openDatabase(opts: DbOptions): Promise<DbHandle> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.schema, opts.poolSize ?? 10);
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(opts.dataDir, 'kit.sqlite');
  ownerOnly(file);
  const raw = new SQLite(file);
  // WAL with synchronous=NORMAL: a committed transaction survives a crash of the process;
  // only a power loss can drop the last moments of commits.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  const dialect = new BetterSqliteDialect(raw);
  const db = new Kysely<Database>({ dialect });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
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

async function openPostgres(url: string, schema: string | undefined, poolSize: number): Promise<DbHandle> {
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    options: schema ? `-c search_path="${schema}"` : undefined,
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    pool,
    schema: schema ?? 'public',
    close: () => db.destroy(),
  };
}

/** Brings the schema up to date. On PostgreSQL an advisory lock keeps concurrent starts in line. */
export async function migrate(handle: DbHandle): Promise<void> {
  // Up to date is the usual case: then starting (the service, every `kit` command) only reads, so
  // it never waits for, or holds, a write lock another process has.
  if (await isCurrent(handle)) return;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migrator takes any schema: migrations predate the current one
  const runOn = async (db: Kysely<any>) => {
    // Kysely looks for its own tables in every schema unless told which: pin it to ours, or another
    // schema's tables (a concurrent test run, another kit) make it skip creating them here.
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations(handle.dialect) },
      ...(handle.dialect === 'postgres' && handle.schema ? { migrationTableSchema: handle.schema } : {}),
    });
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
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

async function isCurrent(handle: DbHandle): Promise<boolean> {
  try {
    const table = handle.dialect === 'postgres' && handle.schema ? sql.table(`${handle.schema}.kysely_migration`) : sql.table('kysely_migration');
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(handle.db);
    const applied = new Set(rows.map((r) => r.name));
    return Object.keys(migrations(handle.dialect)).every((name) => applied.has(name));
  } catch {
    return false;
  }
}
