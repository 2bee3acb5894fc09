/** The data folder holds keys, sealed secrets and the database: owner only, whoever creates it first. */
import fs from 'node:fs';

/**
 * Creates `dir` (and missing parents) with mode 0700. A folder this call creates is set to 0700
 * whatever the umask; an existing folder is left as the operator made it.
 */
export function ensurePrivateDir(dir: string): void {
  if (fs.existsSync(dir)) return;
  const first = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first) fs.chmodSync(dir, 0o700);
}
