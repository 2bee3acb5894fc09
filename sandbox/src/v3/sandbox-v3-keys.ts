/**
 * The key material of the sandbox's API v3 platform (docs/sandbox.md): its own private key, with
 * the public-key id (`PUB_KEY_ID_…`) and the self-signed certificate that name it, generated into
 * `DATA_DIR/pay-v3/` by `dev-credentials.ts`; and what it needs of the merchant (the service
 * provider): the public key of its API private key and its certificate serial, to check request
 * signatures, and the APIv3 key, to encrypt notifications and certificates. A configured merchant
 * (`PAY_SP_PRIVATE_KEY`, `PAY_SP_CERT_SERIAL`, `PAY_V3_KEY`) is taken as configured; otherwise the
 * development merchant of the same files, so `npm start` needs no setting.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '@kit/server/plugins/dev-plugin';
import type { Faults } from '../sandbox-faults';
import { devV3Material } from './dev-credentials';
import { platformCertificate } from '../protocol/self-signed';
import { serialOf } from '../protocol/v3-rules';

/** Which id the platform's signatures name in `Wechatpay-Serial` (a sandbox fault, `v3Serial`). */
export type V3SerialMode = 'public-key' | 'certificate';

export interface PlatformCertificate {
  privateKey: KeyObject;
  pem: string;
  serial: string;
}

/** The key that signs now and the id `Wechatpay-Serial` names. */
export interface PlatformSigning {
  privateKey: KeyObject;
  serial: string;
}

export interface SandboxV3Keys {
  /** The platform's private key: signs answers and notifications, decrypts personal names. */
  privateKey: KeyObject;
  publicKeyId: string;
  certificatePem: string;
  certificateSerial: string;
  /** The service provider's merchant number, public key and certificate serial (request signatures). */
  merchant: { mchid: string; publicKey: KeyObject; serial: string };
  apiV3Key: string;
  /**
   * The certificate the platform moves to in a rotation (fault `v3Certificates: "rotated"`): a key
   * of its own, made on first use and kept for the life of the process (a kit that trusts it again
   * after a restart fetches the list again, as with a real rotation).
   */
  rotated(): PlatformCertificate;
  /** Which key signs the next answer, and the next notification, while a merchant switches (fault `v3Serial: "switching"`). */
  switching: { answers: SwitchTurns; notifications: SwitchTurns };
}

/**
 * The platform's turns between the two keys while it moves a merchant to the public key: a share
 * of the signatures with the public key, spread evenly over the signatures made (at 0.5, by turns,
 * the certificate first), so that a test sees both and a person can raise the share as the
 * platform's switch guide does.
 */
export class SwitchTurns {
  private n = 0;

  /** Whether this signature is made with the public key. */
  publicKeyNext(share: number): boolean {
    const n = this.n++;
    return Math.floor((n + 1) * share) > Math.floor(n * share);
  }
}

/** The merchant's API v3 settings (docs/configuration.md) the platform checks requests and encrypts by. */
interface V3MerchantSettings {
  PAY_SP_PRIVATE_KEY?: string;
  PAY_SP_CERT_SERIAL?: string;
  PAY_V3_KEY?: string;
}

/** A key setting's PEM: the text itself, or the file it names (as the kit's settings allow both). */
const pemOf = (value: string): string => (value.trim().startsWith('-----BEGIN') ? value.trim() : readFileSync(value.trim(), 'utf8'));

export function sandboxV3Keys(config: Config): SandboxV3Keys {
  const dev = devV3Material(config.DATA_DIR);
  // The v3 settings are the kit's (docs/configuration.md); read here when present, never required.
  const s = config as Config & V3MerchantSettings;
  const merchantKey = createPrivateKey(pemOf(s.PAY_SP_PRIVATE_KEY?.trim() || dev.settings.PAY_SP_PRIVATE_KEY));
  return {
    privateKey: dev.platform.privateKey,
    publicKeyId: dev.platform.publicKeyId,
    certificatePem: dev.platform.certificatePem,
    certificateSerial: serialOf(dev.platform.certificateSerial),
    merchant: {
      mchid: config.PAY_SP_MCH_ID ?? '',
      publicKey: createPublicKey(merchantKey),
      serial: serialOf(s.PAY_SP_CERT_SERIAL?.trim() || dev.settings.PAY_SP_CERT_SERIAL),
    },
    apiV3Key: s.PAY_V3_KEY?.trim() || dev.settings.PAY_V3_KEY,
    rotated: () => (rotated ??= newCertificate()),
    switching: { answers: new SwitchTurns(), notifications: new SwitchTurns() },
  };
}

let rotated: PlatformCertificate | undefined;

function newCertificate(now = Date.now()): PlatformCertificate {
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const serial = serialOf(randomBytes(8).toString('hex'));
  const pem = platformCertificate(privateKey, {
    commonName: 'Sandbox payment platform',
    serial,
    notBefore: now - 60_000,
    notAfter: now + 5 * 365 * 86_400_000,
  });
  return { privateKey, pem, serial };
}

/** The certificates `/v3/certificates` lists: the current one, and the new one during a rotation. */
export function certificatesOf(keys: SandboxV3Keys, rotatedToo: boolean): PlatformCertificate[] {
  const current = { privateKey: keys.privateKey, pem: keys.certificatePem, serial: keys.certificateSerial };
  return rotatedToo ? [current, keys.rotated()] : [current];
}

/**
 * Who signs: in public-key mode the platform key under its `PUB_KEY_ID_…`; in certificate mode the
 * certificate in use, the newest one during a rotation (a kit that knows only the older one must
 * fetch the list again to verify).
 */
export function signingOf(keys: SandboxV3Keys, mode: V3SerialMode, rotatedToo: boolean): PlatformSigning {
  if (mode === 'public-key') return { privateKey: keys.privateKey, serial: keys.publicKeyId };
  const newest = certificatesOf(keys, rotatedToo).at(-1)!;
  return { privateKey: newest.privateKey, serial: newest.serial };
}

/**
 * Who signs an answer or a notification under the faults now. `switching` (a merchant in the middle
 * of the move from certificates to the public key): the public key for `v3PublicKeyShare` of the
 * notifications and of the answers to requests naming the public-key id in `Wechatpay-Serial`
 * (which is how a merchant asks for answers signed with it; `turns` is then the answers' turns),
 * the certificate otherwise (`turns` null: a request that did not ask).
 */
export function signingUnder(keys: SandboxV3Keys, f: Faults, turns: SwitchTurns | null): PlatformSigning {
  const rotated = f.v3Certificates === 'rotated';
  if (f.v3Serial !== 'switching') return signingOf(keys, f.v3Serial, rotated);
  return signingOf(keys, turns?.publicKeyNext(f.v3PublicKeyShare ?? 0.5) ? 'public-key' : 'certificate', rotated);
}

/** The ids a request may name in `Wechatpay-Serial` for names encrypted to the platform key. */
export function platformKeyIds(keys: SandboxV3Keys): string[] {
  return [keys.publicKeyId, keys.certificateSerial];
}
