/**
 * Jest's global setup (jest.config.js): what every test of one run shares, made once before any
 * worker starts. Today that is the development API v3 and Alipay key sets, the sandbox's (dev-keys.ts); global-teardown.ts
 * removes it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// The key makers' own modules, not `@kit/sandbox`: the global setup runs outside Jest's module map, where the package's other imports do not resolve.
import { devAlipayMaterial } from '../../../sandbox/src/alipay/dev-keys';
import { devV3Material } from '../../../sandbox/src/v3/dev-credentials';
import { DEV_KEYS_ENV } from './dev-keys';

export default function setup(): void {
  // Once per run even when a run selects several groups (each project runs its global setup).
  if (process.env[DEV_KEYS_ENV] && fs.existsSync(process.env[DEV_KEYS_ENV])) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-test-keys-'));
  devV3Material(dir);
  devAlipayMaterial(dir);
  // Jest starts its workers after the global setup; they inherit this.
  process.env[DEV_KEYS_ENV] = dir;
}
