/**
 * Development only: the API v3 key material of both sides, generated into `DATA_DIR/pay-v3/` (files
 * mode 0600) on first start like the chain node key, so that `npm start` speaks v3 to its own sandbox
 * with no setting. The merchant side gets the settings of a real merchant account (private key,
 * certificate serial, APIv3 key, platform public key and id); the sandbox gets the platform's
 * private key and certificate. Concurrent first starts agree: each file is linked into place once and
 * everyone reads what is there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { normalSerial } from './keys';
import { selfSignedCertificate } from './self-signed';
import type { V3Settings } from './credentials';
import { devFileOnce } from '../dev-file';

export interface DevPlatformSide {
  privateKey: KeyObject;
  publicKeyId: string;
  certificatePem: string;
  certificateSerial: string;
}

export interface DevV3Material {
  /** What a merchant's configuration would hold (public-key mode). */
  settings: Required<Pick<V3Settings, 'PAY_SP_PRIVATE_KEY' | 'PAY_SP_CERT_SERIAL' | 'PAY_V3_KEY' | 'PAY_PLATFORM_PUBLIC_KEY' | 'PAY_PLATFORM_PUBLIC_KEY_ID'>>;
  platform: DevPlatformSide;
}

const rsaPem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();

/** A certificate serial as the platform shows one: upper-case hex with no leading zero (comparisons drop them). */
export const devCertSerial = (bytes: number) => normalSerial(hex(bytes));

export function devV3Material(dataDir: string, now = Date.now()): DevV3Material {
  const dir = path.join(dataDir, 'pay-v3');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const merchantKey = devFileOnce(dir, 'apiclient_key.pem', rsaPem);
  const ids = JSON.parse(
    devFileOnce(dir, 'ids.json', () =>
      JSON.stringify({
        merchantCertSerial: devCertSerial(20),
        platformPublicKeyId: `PUB_KEY_ID_01${hex(16)}`,
        platformCertSerial: devCertSerial(8),
        apiV3Key: randomBytes(16).toString('hex'),
      }),
    ),
  ) as { merchantCertSerial: string; platformPublicKeyId: string; platformCertSerial: string; apiV3Key: string };
  const platformKey = createPrivateKey(devFileOnce(dir, 'platform_key.pem', rsaPem));
  const certificatePem = devFileOnce(dir, 'platform_cert.pem', () =>
    selfSignedCertificate(platformKey, {
      commonName: 'Sandbox payment platform',
      serial: ids.platformCertSerial,
      notBefore: now - 60_000,
      notAfter: now + 5 * 365 * 86_400_000,
    }),
  );
  return {
    settings: {
      PAY_SP_PRIVATE_KEY: merchantKey,
      PAY_SP_CERT_SERIAL: ids.merchantCertSerial,
      PAY_V3_KEY: ids.apiV3Key,
      PAY_PLATFORM_PUBLIC_KEY: createPublicKey(platformKey).export({ format: 'pem', type: 'spki' }).toString(),
      PAY_PLATFORM_PUBLIC_KEY_ID: ids.platformPublicKeyId,
    },
    platform: { privateKey: platformKey, publicKeyId: ids.platformPublicKeyId, certificatePem, certificateSerial: ids.platformCertSerial },
  };
}
