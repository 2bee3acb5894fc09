/** Removes what global-setup.ts made for the run. */
import fs from 'node:fs';
import { DEV_KEYS_ENV } from './dev-keys';

export default function teardown(): void {
  const dir = process.env[DEV_KEYS_ENV];
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
