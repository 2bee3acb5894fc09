/**
 * The one settings file the service (`npm start`, `npm run server`) and every `kit` command read
 * alike: `.env` at the checkout's root, or the file `KIT_ENV_FILE` names (`off`: none). Lines are
 * `NAME=value` as in any dotenv file (Node's own parser reads them); a variable set in the real
 * environment wins over the file, so a process manager or a one-off `PORT=9090 npm start` still
 * decides. Read at the entry points only (`service.ts`, `kit/main.ts`): tests and the in-process
 * runtime are given their environment whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { REPO_ROOT } from './repo-root';

export interface Settings {
  /** The environment the configuration is parsed from: the file's values under the real ones. */
  env: NodeJS.ProcessEnv;
  /** The file read, absolute; undefined when there was none. */
  file?: string;
  /** The names the file set that the real environment did not. */
  fromFile: string[];
}

/** The file `KIT_ENV_FILE` names (relative to the working directory), `.env` at the root by default; null for `off`. */
export function settingsFilePath(env: NodeJS.ProcessEnv = process.env, root = REPO_ROOT): string | null {
  const named = env.KIT_ENV_FILE?.trim();
  if (named === 'off') return null;
  return named ? path.resolve(named) : path.join(root, '.env');
}

/**
 * The environment with the settings file under it. A file `KIT_ENV_FILE` names must exist (a typo
 * must not silently start on defaults); the default `.env` may be absent.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env, root = REPO_ROOT): Settings {
  const file = settingsFilePath(env, root);
  if (!file) return { env, fromFile: [] };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !env.KIT_ENV_FILE?.trim()) return { env, fromFile: [] };
    throw new Error(`KIT_ENV_FILE: cannot read ${file}: ${(e as Error).message}`);
  }
  const values = parseEnv(text) as Record<string, string>;
  const fromFile = Object.keys(values).filter((k) => env[k] === undefined);
  return { env: { ...values, ...env }, file, fromFile };
}
