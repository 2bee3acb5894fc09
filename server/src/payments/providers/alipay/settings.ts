/**
 * The Alipay provider's settings (a section of the configuration schema) and their check: a
 * configuration that names any of them must be complete and parse, and is refused naming the
 * setting; with none of them Alipay is off.
 *
 * - `ALIPAY_APP_ID`: the service provider's application (acting for merchants through their
 *   `app_auth_token`).
 * - `ALIPAY_PRIVATE_KEY`: the application private key (RSA2), PEM text, bare base64 or a path.
 * - Public-key mode: `ALIPAY_PUBLIC_KEY` (Alipay's public key).
 * - Certificate mode: `ALIPAY_APP_CERT`, `ALIPAY_PUBLIC_CERT`, `ALIPAY_ROOT_CERT` (PEM text or paths).
 * - `ALIPAY_GATEWAY_URL`, `ALIPAY_MINI_APP_ID` (the Alipay mini-program payers open, `op_app_id`).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { certSn, CertificateError, rootCertSn } from './cert-sn';
import { AlipayKeyError, certificateKey, loadPrivateKey, loadPublicKey, readCertificateText, samePublicKey } from './keys';

export const ALIPAY_DEFAULT_GATEWAY = 'https://openapi.alipay.com/gateway.do';

const optionalText = () => z.string().min(1).optional();

/** The section of the configuration schema (`z.object({...alipaySettingsShape})`). */
export const alipaySettingsShape = {
  ALIPAY_APP_ID: optionalText().describe(
    "Alipay: the service provider's application id on Alipay's open platform, acting for each merchant through the merchant's `appAuthToken` (third-party app authorization). Unset with every other `ALIPAY_*` key setting: Alipay is off, except in development with SANDBOX_ENABLED, where the sandbox plays Alipay with keys generated into `DATA_DIR/alipay-dev/`.",
  ),
  ALIPAY_PRIVATE_KEY: optionalText().describe(
    'Alipay: the application private key (RSA2, `SHA256withRSA`), as PEM text, the bare base64 of the key tool, or the path of the file; signs every request, the app order string and the WAP payment URL.',
  ),
  ALIPAY_PUBLIC_KEY: optionalText().describe(
    "Alipay, public-key mode: Alipay's public key (PEM text, bare base64 or a path); verifies answers and notifications. Set it, or the three certificates of certificate mode, not both.",
  ),
  ALIPAY_APP_CERT: optionalText().describe(
    'Alipay, certificate mode: the application public key certificate (`appCertPublicKey_<appid>.crt`, PEM text or a path); its SN is sent as `app_cert_sn` on every request.',
  ),
  ALIPAY_PUBLIC_CERT: optionalText().describe(
    "Alipay, certificate mode: Alipay's public key certificate (`alipayCertPublicKey_RSA2.crt`, PEM text or a path); verifies answers (named by `alipay_cert_sn`) and notifications.",
  ),
  ALIPAY_ROOT_CERT: optionalText().describe(
    "Alipay, certificate mode: Alipay's root certificate file (`alipayRootCert.crt`, PEM text or a path); its RSA certificates' SNs are sent as `alipay_root_cert_sn` on every request.",
  ),
  ALIPAY_GATEWAY_URL: z
    .string()
    .url()
    .default(ALIPAY_DEFAULT_GATEWAY)
    .describe(
      "Alipay's open platform gateway, used once the `ALIPAY_*` keys are set; without them, in development, the sandbox's (`<service>/sandbox/alipay/gateway.do`).",
    ),
  ALIPAY_MINI_APP_ID: optionalText().describe(
    "Alipay: the kit's Alipay mini-program payers open, the counterpart of `MP_APPID`: `op_app_id` of `alipay.trade.create` (`alipayMini`, `/mp/api/alipay/pay`) and the application whose login codes `alipay.system.oauth.token` exchanges (signed with ALIPAY_PRIVATE_KEY: give the mini-program the same application key). Unset: `alipayMini` answers `channel_unavailable`. In development with the sandbox, generated with the keys (`DATA_DIR/alipay-dev/mini_app_id`).",
  ),
};

export const alipaySettingsSchema = z.object(alipaySettingsShape);
export type AlipaySettings = Partial<z.input<typeof alipaySettingsSchema>>;
type Setting = keyof typeof alipaySettingsShape;

/** The settings whose presence turns Alipay on (the gateway has a default). */
export const ALIPAY_KEY_SETTINGS = [
  'ALIPAY_APP_ID',
  'ALIPAY_PRIVATE_KEY',
  'ALIPAY_PUBLIC_KEY',
  'ALIPAY_APP_CERT',
  'ALIPAY_PUBLIC_CERT',
  'ALIPAY_ROOT_CERT',
  'ALIPAY_MINI_APP_ID',
] as const satisfies readonly Setting[];

/** How answers and notifications are trusted, and what certificate mode adds to every request. */
export type AlipayTrust =
  | { mode: 'public-key'; alipayPublicKey: KeyObject }
  | { mode: 'certificate'; alipayPublicKey: KeyObject; appCertSn: string; alipayCertSn: string; alipayRootCertSn: string };

export interface AlipayCredentials {
  appId: string;
  privateKey: KeyObject;
  trust: AlipayTrust;
  gatewayUrl: string;
  miniAppId?: string;
}

export class AlipaySettingsError extends Error {
  constructor(
    readonly setting: Setting,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

/** The credentials of a complete configuration, null when Alipay is off; throws AlipaySettingsError naming the setting. */
export function alipayCredentials(s: AlipaySettings): AlipayCredentials | null {
  const given = (k: Setting): string | undefined => {
    const v = s[k]?.trim();
    return v ? v : undefined;
  };
  if (!ALIPAY_KEY_SETTINGS.some((k) => given(k) !== undefined)) return null;
  const required = (k: Setting, why: string): string => {
    const v = given(k);
    if (!v) throw new AlipaySettingsError(k, `required ${why}`);
    return v;
  };
  const appId = required('ALIPAY_APP_ID', 'when any ALIPAY_* key setting is set');
  if (!/^[0-9]{8,32}$/.test(appId)) throw new AlipaySettingsError('ALIPAY_APP_ID', 'an Alipay application id is digits, such as 2021000122671080');
  const privateKey = withSetting('ALIPAY_PRIVATE_KEY', () => loadPrivateKey(required('ALIPAY_PRIVATE_KEY', 'to sign requests (RSA2)')));
  const ownPublic = createPublicKey(privateKey);
  const gatewayUrl = given('ALIPAY_GATEWAY_URL') ?? ALIPAY_DEFAULT_GATEWAY;
  if (!/^https?:\/\/[^\s]+$/.test(gatewayUrl)) throw new AlipaySettingsError('ALIPAY_GATEWAY_URL', 'must be an http(s) URL');
  const miniAppId = given('ALIPAY_MINI_APP_ID');
  if (miniAppId !== undefined && !/^[0-9]{8,32}$/.test(miniAppId))
    throw new AlipaySettingsError('ALIPAY_MINI_APP_ID', 'an Alipay mini-program id is digits, such as 2021000122671081');

  const publicKey = given('ALIPAY_PUBLIC_KEY');
  const certSettings = (['ALIPAY_APP_CERT', 'ALIPAY_PUBLIC_CERT', 'ALIPAY_ROOT_CERT'] as const).filter((k) => given(k) !== undefined);
  let trust: AlipayTrust;
  if (publicKey && certSettings.length > 0) {
    throw new AlipaySettingsError(certSettings[0], 'certificate mode and public-key mode (ALIPAY_PUBLIC_KEY) exclude each other: set one');
  } else if (publicKey) {
    const alipayPublicKey = withSetting('ALIPAY_PUBLIC_KEY', () => loadPublicKey(publicKey));
    if (samePublicKey(alipayPublicKey, ownPublic))
      throw new AlipaySettingsError('ALIPAY_PUBLIC_KEY', "this is the application's own public key, not Alipay's (the open platform shows both)");
    trust = { mode: 'public-key', alipayPublicKey };
  } else if (certSettings.length > 0) {
    const why = 'in certificate mode (with ALIPAY_APP_CERT, ALIPAY_PUBLIC_CERT and ALIPAY_ROOT_CERT)';
    const appCert = withSetting('ALIPAY_APP_CERT', () => readCertificateText(required('ALIPAY_APP_CERT', why)));
    const publicCert = withSetting('ALIPAY_PUBLIC_CERT', () => readCertificateText(required('ALIPAY_PUBLIC_CERT', why)));
    const rootCert = withSetting('ALIPAY_ROOT_CERT', () => readCertificateText(required('ALIPAY_ROOT_CERT', why)));
    const appCertSn = withSetting('ALIPAY_APP_CERT', () => certSn(appCert));
    if (
      !samePublicKey(
        withSetting('ALIPAY_APP_CERT', () => certificateKey(appCert)),
        ownPublic,
      )
    )
      throw new AlipaySettingsError('ALIPAY_APP_CERT', 'its public key does not match ALIPAY_PRIVATE_KEY');
    const alipayCertSn = withSetting('ALIPAY_PUBLIC_CERT', () => certSn(publicCert));
    const alipayPublicKey = withSetting('ALIPAY_PUBLIC_CERT', () => certificateKey(publicCert));
    if (samePublicKey(alipayPublicKey, ownPublic))
      throw new AlipaySettingsError('ALIPAY_PUBLIC_CERT', "this is the application's own certificate, not Alipay's");
    const alipayRootCertSn = withSetting('ALIPAY_ROOT_CERT', () => rootCertSn(rootCert));
    trust = { mode: 'certificate', alipayPublicKey, appCertSn, alipayCertSn, alipayRootCertSn };
  } else {
    throw new AlipaySettingsError(
      'ALIPAY_PUBLIC_KEY',
      "required to verify Alipay's answers (public-key mode), or set ALIPAY_APP_CERT, ALIPAY_PUBLIC_CERT and ALIPAY_ROOT_CERT (certificate mode)",
    );
  }
  return { appId, privateKey, trust, gatewayUrl, ...(miniAppId ? { miniAppId } : {}) };
}

/** The problem of a configuration as one line naming the setting, or null (for the startup check). */
export function alipaySettingsProblem(s: AlipaySettings): string | null {
  try {
    alipayCredentials(s);
    return null;
  } catch (e) {
    if (e instanceof AlipaySettingsError) return e.message;
    throw e;
  }
}

function withSetting<T>(setting: Setting, load: () => T): T {
  try {
    return load();
  } catch (e) {
    if (e instanceof AlipayKeyError || e instanceof CertificateError) throw new AlipaySettingsError(setting, e.message);
    throw e;
  }
}
