/**
 * Development API v3 keys made once per test run instead of once per service start: generating the
 * two RSA-2048 keys was most of a test service's start. Jest's global setup (global-setup.ts) makes one
 * set; every data folder a test creates for a service is seeded with a copy, so each service still
 * finds its own `DATA_DIR/pay-v3/` exactly as a first start leaves it. Without the global setup
 * (a script outside Jest) nothing is seeded and the service generates its keys as in development.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Set by the global setup for the test workers it starts. */
export const DEV_KEYS_ENV = 'KIT_TEST_DEV_KEYS';
const SUBDIR = 'pay-v3';

/** Copies the run's development keys into `dataDir` (which must not have any yet). */
export function seedDevKeys(dataDir: string): void {
  const from = process.env[DEV_KEYS_ENV];
  if (!from) return;
  const src = path.join(from, SUBDIR);
  const dst = path.join(dataDir, SUBDIR);
  fs.mkdirSync(dst, { recursive: true, mode: 0o700 });
  for (const name of fs.readdirSync(src)) fs.copyFileSync(path.join(src, name), path.join(dst, name), fs.constants.COPYFILE_EXCL);
}
