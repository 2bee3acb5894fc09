/**
 * One suite, several backends (the pg-boss way): every storage test runs on a SQLite file and, when
 * TEST_DATABASE_URL is set, on PostgreSQL in a schema of its own that is dropped afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { seedDevKeys } from './dev-keys';

/** The social channel's protocols (`PAY_PROTOCOL`): API v3, the default, and protocol v2. */
export type PayProtocol = 'v3' | 'v2';
export const BOTH_PROTOCOLS: readonly PayProtocol[] = ['v3', 'v2'];

/**
 * The protocols a suite runs on unless it names its own: `TEST_PAY_PROTOCOLS` (`v2`, `v3,v2`), or
 * the default protocol alone.
 */
function defaultProtocols(): readonly PayProtocol[] {
  const list = (process.env.TEST_PAY_PROTOCOLS ?? 'v3').split(',').map((p) => p.trim());
  const bad = list.filter((p) => p !== 'v3' && p !== 'v2');
  if (bad.length) throw new Error(`TEST_PAY_PROTOCOLS: ${bad.join(', ')} is not v3 or v2`);
  return list as PayProtocol[];
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** The social channel's protocol the kit is started with (its env() says `PAY_PROTOCOL`). */
  protocol: PayProtocol;
  /** Environment for a fresh, empty database on this backend. */
  env(): NodeJS.ProcessEnv;
  /** Removes what `env()` created. */
  cleanup(): Promise<void>;
}

const PG_URL = process.env.TEST_DATABASE_URL;
let warned = false;

export function backends(protocol: PayProtocol = 'v3'): Backend[] {
  const list: Backend[] = [withProtocol(sqliteBackend(), protocol)];
  if (PG_URL) list.push(withProtocol(postgresBackend(PG_URL), protocol));
  else if (!warned) {
    warned = true;
    // Said plainly, once per test file: these suites did not run on PostgreSQL.
    process.stderr.write('\n*** PostgreSQL store tests NOT RUN: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) ***\n\n');
  }
  return list;
}

function withProtocol(b: Omit<Backend, 'protocol'>, protocol: PayProtocol): Backend {
  // No settings file: a developer's own `.env` at the checkout root must not reach a test's processes.
  return { ...b, protocol, env: () => ({ KIT_ENV_FILE: 'off', ...b.env(), PAY_PROTOCOL: protocol }) };
}

function sqliteBackend(): Omit<Backend, 'protocol'> {
  const dirs: string[] = [];
  return {
    name: 'sqlite',
    env() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-test-'));
      seedDevKeys(dir);
      dirs.push(dir);
      return { DATA_DIR: dir };
    },
    async cleanup() {
      for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

function postgresBackend(url: string): Omit<Backend, 'protocol'> {
  const schemas: string[] = [];
  const dirs: string[] = [];
  return {
    name: 'postgres',
    env() {
      const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-test-'));
      seedDevKeys(dir);
      schemas.push(schema);
      dirs.push(dir);
      // Pools sized to a test, not to production: two copies of the suite share one server's stock 100 connections.
      return { DATA_DIR: dir, DATABASE_URL: url, DATABASE_SCHEMA: schema, DATABASE_POOL_SIZE: '3' };
    },
    async cleanup() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      } finally {
        await client.end();
      }
      for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/**
 * `describe` once per backend and protocol, with both in the title (`[sqlite v3]`). Suites run on
 * the default protocol (or `TEST_PAY_PROTOCOLS`); those about the channel name `BOTH_PROTOCOLS`.
 */
export function describeEachBackend(title: string, body: (backend: Backend) => void, opts: { protocols?: readonly PayProtocol[] } = {}): void {
  for (const backend of (opts.protocols ?? defaultProtocols()).flatMap((p) => backends(p))) {
    describe(`${title} [${backend.name} ${backend.protocol}]`, () => {
      body(backend);
      // Declared after the body's hooks because Jest runs afterAll hooks in declaration order: the
      // body's services must be closed before their database goes (a DROP SCHEMA under running
      // workers can deadlock with them).
      afterAll(() => backend.cleanup());
    });
  }
}
