/**
 * Development API v3 and Alipay keys made once per test run instead of once per service start:
 * generating the RSA-2048 keys was most of a test service's start. Jest's global setup (global-setup.ts) makes one
 * set; every data folder a test creates for a service is seeded with a copy, so each service still
 * finds its own `DATA_DIR/pay-v3/` and `DATA_DIR/alipay-dev/` exactly as a first start leaves it. Without the global setup
 * (a script outside Jest) nothing is seeded and the service generates its keys as in development.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ALIPAY_DEV_DIR } from '../../../sandbox/src/alipay/dev-keys';

/** Set by the global setup for the test workers it starts. */
export const DEV_KEYS_ENV = 'KIT_TEST_DEV_KEYS';
const SUBDIRS = ['pay-v3', ALIPAY_DEV_DIR];

/** Copies the run's development keys into `dataDir` (which must not have any yet). */
export function seedDevKeys(dataDir: string): void {
  const from = process.env[DEV_KEYS_ENV];
  if (!from) return;
  for (const sub of SUBDIRS) {
    const src = path.join(from, sub);
    // A run's key folder made before Alipay's keys were: that service generates its own.
    if (!fs.existsSync(src)) continue;
    const dst = path.join(dataDir, sub);
    fs.mkdirSync(dst, { recursive: true, mode: 0o700 });
    for (const name of fs.readdirSync(src)) fs.copyFileSync(path.join(src, name), path.join(dst, name), fs.constants.COPYFILE_EXCL);
  }
}
