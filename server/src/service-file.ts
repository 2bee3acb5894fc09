/**
 * `DATA_DIR/service.json`: where the running service listens and which database it works on,
 * written once it listens and removed when it stops. The `kit` command reads it instead of assuming
 * `PORT` and `DATABASE_URL`: it reaches the sandbox and points a demo shop's callbacks at the port
 * the service really has, and it refuses to act on another database than the service's
 * (`kit/service-check.ts`). A file left by a service that died is recognised (its process is gone)
 * and ignored.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parsePgUrl } from 'pg-connection-string';
import { z } from 'zod';
import type { Config } from './config';

export const SERVICE_FILE = 'service.json';

const record = z.object({
  pid: z.number().int(),
  hostname: z.string(),
  /** One per runtime: several runtimes of one process (tests) each remove only their own file. */
  instance: z.string(),
  /** The listening URL with BASE_PATH, on an address this machine reaches (`127.0.0.1` for all addresses). */
  url: z.string(),
  port: z.number().int(),
  /** PORT as configured (`0`: any free port). */
  configuredPort: z.number().int(),
  publicUrl: z.string().optional(),
  database: z.string(),
  startedAt: z.string(),
});

export type RunningService = z.infer<typeof record>;

/**
 * The database a configuration works on, as one comparable string without secrets: the SQLite
 * file's path, or the PostgreSQL server, database and schema (never the password).
 */
export function databaseIdentity(config: Pick<Config, 'DATA_DIR' | 'DATABASE_URL' | 'DATABASE_SCHEMA'>): string {
  if (!config.DATABASE_URL) return `sqlite ${path.join(config.DATA_DIR, 'kit.sqlite')}`;
  const c = parsePgUrl(config.DATABASE_URL);
  const where = `${c.user ? `${c.user}@` : ''}${c.host ?? ''}${c.port ? `:${c.port}` : ''}/${c.database ?? ''}`;
  return `postgresql ${where} schema ${config.DATABASE_SCHEMA ?? 'public'}`;
}

/** Writes the file (mode 0600, renamed into place) and returns what removes it again, if it is still this runtime's. */
export function writeServiceFile(config: Config, listening: { url: string; port: number }): () => void {
  const file = path.join(config.DATA_DIR, SERVICE_FILE);
  const instance = randomBytes(8).toString('hex');
  const content: RunningService = {
    pid: process.pid,
    hostname: os.hostname(),
    instance,
    url: listening.url,
    port: listening.port,
    configuredPort: config.PORT,
    ...(config.PUBLIC_URL ? { publicUrl: config.PUBLIC_URL.replace(/\/+$/, '') } : {}),
    database: databaseIdentity(config),
    startedAt: new Date().toISOString(),
  };
  fs.mkdirSync(config.DATA_DIR, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${instance}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(content, null, 1)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return () => {
    try {
      if (readFile(file)?.instance === instance) fs.rmSync(file, { force: true });
    } catch {
      // Stopping goes on: a file left behind names a process that is gone, and is ignored.
    }
  };
}

function readFile(file: string): RunningService | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = record.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The service running on this data folder, on this machine; null when none is (no file, or its process is gone). */
export function runningService(dataDir: string): RunningService | null {
  const found = readFile(path.join(dataDir, SERVICE_FILE));
  if (!found || found.hostname !== os.hostname() || !alive(found.pid)) return null;
  return found;
}
