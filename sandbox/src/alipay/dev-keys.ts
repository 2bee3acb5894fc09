/**
 * Development only: Alipay's key material of both sides, generated into `DATA_DIR/alipay-dev/`
 * (files mode 0600) on first start, as API v3's development keys are (`DATA_DIR/pay-v3/`),
 * so that `npm start` pays with Alipay against its own sandbox with no setting. The kit's side gets
 * what a real configuration holds (an app id, the application private key, Alipay's public key); the
 * sandbox gets Alipay's private key and the application's public key. Concurrent first starts agree:
 * each file is linked into place once and everyone reads what is there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { devFileOnce } from '../dev-file';

/** The folder under DATA_DIR (the test runs' global setup seeds it once per run). */
export const ALIPAY_DEV_DIR = 'alipay-dev';

export interface DevAlipayMaterial {
  appId: string;
  /** The development mini-program (`ALIPAY_MINI_APP_ID`'s stand-in): `op_app_id`, and the app its login codes are for. */
  miniAppId: string;
  appPrivateKey: KeyObject;
  appPublicKey: KeyObject;
  alipayPrivateKey: KeyObject;
  alipayPublicKey: KeyObject;
}

const rsaPem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

const cache = new Map<string, DevAlipayMaterial>();

export function devAlipayMaterial(dataDir: string): DevAlipayMaterial {
  const dir = path.join(dataDir, ALIPAY_DEV_DIR);
  const known = cache.get(dir);
  if (known && fs.existsSync(dir)) return known;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // An Alipay app id is 16 digits.
  const appId = devFileOnce(dir, 'app_id', () => `2021${String(randomBytes(6).readUIntBE(0, 6)).padStart(12, '0').slice(0, 12)}`).trim();
  const miniAppId = devFileOnce(dir, 'mini_app_id', () => `2021${String(randomBytes(6).readUIntBE(0, 6)).padStart(12, '0').slice(0, 12)}`).trim();
  const appPrivateKey = createPrivateKey(devFileOnce(dir, 'app_private_key.pem', rsaPem));
  const alipayPrivateKey = createPrivateKey(devFileOnce(dir, 'alipay_private_key.pem', rsaPem));
  const material = {
    appId,
    miniAppId,
    appPrivateKey,
    appPublicKey: createPublicKey(appPrivateKey),
    alipayPrivateKey,
    alipayPublicKey: createPublicKey(alipayPrivateKey),
  };
  cache.set(dir, material);
  return material;
}
