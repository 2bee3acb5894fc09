/**
 * One suite, several backends (the pg-boss way): every storage test runs on a SQLite file and, when
 * TEST_DATABASE_URL is set, on PostgreSQL in a schema of its own that is dropped afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Environment for a fresh, empty database on this backend. */
  env(): NodeJS.ProcessEnv;
  /** Removes what `env()` created. */
  cleanup(): Promise<void>;
}

const PG_URL = process.env.TEST_DATABASE_URL;
let warned = false;

export function backends(): Backend[] {
  const list: Backend[] = [sqliteBackend()];
  if (PG_URL) list.push(postgresBackend(PG_URL));
  else if (!warned) {
    warned = true;
    // Said plainly, once per test file: these suites did not run on PostgreSQL.
    process.stderr.write('\n*** PostgreSQL store tests NOT RUN: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) ***\n\n');
  }
  return list;
}

function sqliteBackend(): Backend {
  const dirs: string[] = [];
  return {
    name: 'sqlite',
    env() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-test-'));
      dirs.push(dir);
      return { DATA_DIR: dir };
    },
    async cleanup() {
      for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

function postgresBackend(url: string): Backend {
  const schemas: string[] = [];
  const dirs: string[] = [];
  return {
    name: 'postgres',
    env() {
      const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-test-'));
      schemas.push(schema);
      dirs.push(dir);
      return { DATA_DIR: dir, DATABASE_URL: url, DATABASE_SCHEMA: schema };
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

/** `describe` once per backend, with the backend's name in the title. */
export function describeEachBackend(title: string, body: (backend: Backend) => void): void {
  for (const backend of backends()) {
    describe(`${title} [${backend.name}]`, () => {
      body(backend);
      // Declared after the body's hooks because Jest runs afterAll hooks in declaration order: the
      // body's services must be closed before their database goes (a DROP SCHEMA under running
      // workers can deadlock with them).
      afterAll(() => backend.cleanup());
    });
  }
}
