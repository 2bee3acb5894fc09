/**
 * The master key encrypts app secrets at rest. KIT_MASTER_KEY (64 hex characters or base64 of 32
 * bytes) wins; otherwise a key file is generated in the data folder with mode 0600 (development and
 * single-machine installs; several instances must share KIT_MASTER_KEY).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ensurePrivateDir } from './private-dir';

export function loadMasterKey(opts: { envKey?: string; dataDir: string }): Buffer {
  if (opts.envKey) return decodeKey(opts.envKey, 'KIT_MASTER_KEY');
  const file = path.join(opts.dataDir, 'master.key');
  ensurePrivateDir(opts.dataDir);
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return decodeKey(fs.readFileSync(file, 'utf8').trim(), file);
}

function decodeKey(text: string, source: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error(`${source} must hold 32 bytes (64 hex characters or base64)`);
  return key;
}
