/**
 * The API v3 settings of a service provider, checked together so that a configuration that is
 * incomplete, or whose keys do not parse, is refused at startup with the setting named:
 * `PAY_SP_APPID`, `PAY_SP_MCH_ID`, `PAY_SP_PRIVATE_KEY` (PEM text or a path), `PAY_SP_CERT_SERIAL`,
 * `PAY_V3_KEY` (32 characters), and `PAY_PLATFORM_PUBLIC_KEY` with `PAY_PLATFORM_PUBLIC_KEY_ID`
 * (public-key mode) or neither (certificate mode).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { loadPrivateKey, loadPublicKey, V3KeyError } from './keys';
import type { MerchantSigner } from './sign';

export interface V3Settings {
  PAY_SP_APPID?: string;
  PAY_SP_MCH_ID?: string;
  PAY_SP_PRIVATE_KEY?: string;
  PAY_SP_CERT_SERIAL?: string;
  PAY_V3_KEY?: string;
  PAY_PLATFORM_PUBLIC_KEY?: string;
  PAY_PLATFORM_PUBLIC_KEY_ID?: string;
}

/** The settings that hold key material: naming any of them asks for a complete v3 configuration. */
export const V3_KEY_SETTINGS = ['PAY_SP_PRIVATE_KEY', 'PAY_SP_CERT_SERIAL', 'PAY_V3_KEY', 'PAY_PLATFORM_PUBLIC_KEY', 'PAY_PLATFORM_PUBLIC_KEY_ID'] as const;

export type PlatformTrust = { mode: 'public-key'; id: string; publicKey: KeyObject } | { mode: 'certificate' };

export interface V3Credentials {
  spAppId: string;
  signer: MerchantSigner;
  apiV3Key: string;
  platform: PlatformTrust;
}

export class V3SettingsError extends Error {
  constructor(
    readonly setting: keyof V3Settings,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

export function v3Credentials(s: V3Settings): V3Credentials {
  const required = (k: keyof V3Settings): string => {
    const v = s[k]?.trim();
    if (!v) throw new V3SettingsError(k, 'required for PAY_PROTOCOL=v3');
    return v;
  };
  const spAppId = required('PAY_SP_APPID');
  const mchid = required('PAY_SP_MCH_ID');
  const serial = required('PAY_SP_CERT_SERIAL');
  if (!/^[0-9A-Fa-f]{8,40}$/.test(serial)) throw new V3SettingsError('PAY_SP_CERT_SERIAL', 'the merchant API certificate serial is hexadecimal');
  const privateKey = withSetting('PAY_SP_PRIVATE_KEY', () => loadPrivateKey(required('PAY_SP_PRIVATE_KEY')));
  const apiV3Key = required('PAY_V3_KEY');
  if (Buffer.byteLength(apiV3Key, 'utf8') !== 32) throw new V3SettingsError('PAY_V3_KEY', 'the APIv3 key has 32 characters');
  const pub = s.PAY_PLATFORM_PUBLIC_KEY?.trim();
  const pubId = s.PAY_PLATFORM_PUBLIC_KEY_ID?.trim();
  let platform: PlatformTrust = { mode: 'certificate' };
  if (pub || pubId) {
    if (!pub)
      throw new V3SettingsError('PAY_PLATFORM_PUBLIC_KEY', 'required with PAY_PLATFORM_PUBLIC_KEY_ID (public-key mode); set neither for certificate mode');
    if (!pubId)
      throw new V3SettingsError('PAY_PLATFORM_PUBLIC_KEY_ID', 'required with PAY_PLATFORM_PUBLIC_KEY (public-key mode); set neither for certificate mode');
    if (!/^PUB_KEY_ID_\w+$/.test(pubId)) throw new V3SettingsError('PAY_PLATFORM_PUBLIC_KEY_ID', 'a platform public key id looks like PUB_KEY_ID_…');
    const publicKey = withSetting('PAY_PLATFORM_PUBLIC_KEY', () => loadPublicKey(pub));
    if (samePublicKey(publicKey, createPublicKey(privateKey)))
      throw new V3SettingsError('PAY_PLATFORM_PUBLIC_KEY', "this is the merchant's own public key, not the platform's");
    platform = { mode: 'public-key', id: pubId, publicKey };
  }
  return { spAppId, signer: { mchid, serial: serial.toUpperCase(), privateKey }, apiV3Key, platform };
}

function withSetting<T>(setting: keyof V3Settings, load: () => T): T {
  try {
    return load();
  } catch (e) {
    if (e instanceof V3KeyError) throw new V3SettingsError(setting, e.message);
    throw e;
  }
}

const samePublicKey = (a: KeyObject, b: KeyObject): boolean => a.export({ format: 'der', type: 'spki' }).equals(b.export({ format: 'der', type: 'spki' }));
