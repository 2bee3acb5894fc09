/**
 * Development only: the API v3 key material of both sides, generated into `DATA_DIR/pay-v3/` (files
 * mode 0600) on first start, as Alipay's are (`../alipay/dev-keys.ts`), so that `npm start` speaks
 * v3 to its own sandbox with no setting. The merchant side is what a real merchant account's
 * settings hold (private key, certificate serial, APIv3 key, platform public key and id): the
 * social stand-in hands them to the provider it plays when none of them is set
 * (`../stand-ins/social.ts`), and a test or a fleet gives them to a service whose gateway is another
 * instance's sandbox. The platform side (its private key and certificate) stays here. The
 * certificates are made by the sandbox's own maker (`../protocol/self-signed.ts`), not the kit's.
 * Concurrent first starts agree: each file is linked into place once and everyone reads what is there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { devFileOnce } from '../dev-file';
import { platformCertificate } from '../protocol/self-signed';
import { serialOf } from '../protocol/v3-rules';

/** The folder under DATA_DIR (the test runs' global setup seeds it once per run). */
export const V3_DEV_DIR = 'pay-v3';

/** The merchant's API v3 settings (docs/configuration.md) as a real account's configuration would hold them (public-key mode). */
export interface DevV3Settings {
  PAY_SP_PRIVATE_KEY: string;
  PAY_SP_CERT_SERIAL: string;
  PAY_V3_KEY: string;
  PAY_PLATFORM_PUBLIC_KEY: string;
  PAY_PLATFORM_PUBLIC_KEY_ID: string;
}

export interface DevPlatformSide {
  privateKey: KeyObject;
  publicKeyId: string;
  certificatePem: string;
  certificateSerial: string;
}

export interface DevV3Material {
  settings: DevV3Settings;
  platform: DevPlatformSide;
}

const rsaPem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();
/** Five years from a minute ago: development certificates that outlive any development data folder. */
const validity = (now: number) => ({ notBefore: now - 60_000, notAfter: now + 5 * 365 * 86_400_000 });

/** A certificate serial as the platform shows one: upper-case hex with no leading zero (comparisons drop them). */
export const devCertSerial = (bytes: number) => serialOf(hex(bytes));

// Read from the files on each call (a few small reads): a test may rewrite one, as an older DATA_DIR would hold it.
export function devV3Material(dataDir: string, now = Date.now()): DevV3Material {
  const dir = path.join(dataDir, V3_DEV_DIR);
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
    platformCertificate(platformKey, { commonName: 'Sandbox payment platform', serial: ids.platformCertSerial, ...validity(now) }),
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

/**
 * Protocol v2's merchant API certificate in development (`PAY_V2_CLIENT_CERT`, `PAY_V2_CLIENT_KEY`):
 * a self-signed certificate over the development merchant API key (`apiclient_key.pem`, the key
 * API v3 signs with: one merchant API certificate serves both protocols), with the development
 * certificate serial, written once beside it as `apiclient_cert.pem`. The sandbox, reached over
 * plain HTTP, asks for none; an HTTPS stand-in that checks certificates is given the operator's own.
 */
export function devClientCertificate(dataDir: string, now = Date.now()): { cert: string; key: string } {
  const { settings } = devV3Material(dataDir, now);
  const cert = devFileOnce(path.join(dataDir, V3_DEV_DIR), 'apiclient_cert.pem', () =>
    platformCertificate(createPrivateKey(settings.PAY_SP_PRIVATE_KEY), {
      commonName: 'Sandbox merchant API certificate',
      serial: settings.PAY_SP_CERT_SERIAL,
      ...validity(now),
    }),
  );
  return { cert, key: settings.PAY_SP_PRIVATE_KEY };
}
