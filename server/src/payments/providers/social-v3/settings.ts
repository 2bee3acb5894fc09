/**
 * The social payment platform's settings section (design 6.1): the platform's address, the service
 * provider's ids, and the API v3 keys. `social-v2` reads the address and the ids from here too (one
 * platform, two protocols) and adds its own key. docs/configuration.md is generated from the
 * descriptions (`npm run docs`).
 */
import { z } from 'zod';
import { v3Credentials, V3SettingsError, V3_KEY_SETTINGS } from './credentials';

export function socialSettings(production: boolean) {
  return {
    PAY_PROTOCOL: z
      .enum(['v3', 'v2'])
      .default('v3')
      .describe(
        "Protocol of the social payment platform: `v3` (API v3: JSON, the merchant's RSA key, verified answers and notifications) or `v2` (XML signed with `PAY_SP_KEY`, for merchants who still have it) (docs/payments.md).",
      ),
    PAY_GATEWAY_URL: z
      .string()
      .url()
      .optional()
      .describe(
        'Base URL of the social payment platform (`https://api.mch.weixin.qq.com`): `/v3/…` is appended on v3, `/pay/unifiedorder`… on v2. Unset: the sandbox (`<service>/sandbox`).',
      ),
    PAY_GATEWAY_BACKUP_URL: z
      .string()
      .url()
      .optional()
      .describe(
        "v3: the platform's backup domain (`https://api2.mch.weixin.qq.com`), tried when the main one cannot be reached, does not answer within half of PAY_GATEWAY_TIMEOUT or answers 5xx, for calls that are safe to repeat.",
      ),
    PAY_SP_PRIVATE_KEY: z
      .string()
      .min(1)
      .optional()
      .describe(
        "v3: the service provider's merchant API private key (`apiclient_key.pem`), as PEM text or the path of the PEM file; signs every request and the payer arguments (`paySign`, `sign`). Unset with the other v3 keys outside production, while the sandbox plays the platform (SANDBOX_ENABLED, `PAY_GATEWAY_URL` unset): the development keys the sandbox generates into `DATA_DIR/pay-v3/` (mode 0600). A service whose gateway is another instance's sandbox is given those keys as its settings.",
      ),
    PAY_SP_CERT_SERIAL: z
      .string()
      .min(1)
      .optional()
      .describe(
        "v3: serial number (hexadecimal) of the merchant API certificate that goes with `PAY_SP_PRIVATE_KEY`; named in every request's `Authorization`.",
      ),
    PAY_V3_KEY: z
      .string()
      .min(1)
      .optional()
      .describe('v3: the APIv3 key (32 characters) set on the merchant platform; decrypts notifications and downloaded platform certificates.'),
    PAY_PLATFORM_PUBLIC_KEY: z
      .string()
      .min(1)
      .optional()
      .describe(
        "v3, public-key mode: the platform's public key (`pub_key.pem`), PEM text or the path of the PEM file; verifies answers and notifications. Set it with `PAY_PLATFORM_PUBLIC_KEY_ID`, or neither for certificate mode (`GET /v3/certificates`, refreshed every 12 h).",
      ),
    PAY_PLATFORM_PUBLIC_KEY_ID: z
      .string()
      .min(1)
      .optional()
      .describe('v3, public-key mode: the id of `PAY_PLATFORM_PUBLIC_KEY` (`PUB_KEY_ID_…`), the `Wechatpay-Serial` its signatures name.'),
    PAY_SP_APPID: (production ? z.string().min(1).optional() : z.string().min(1).default('wx5andb0xsp000001')).describe(
      "The service provider's app id at the social payment platform.",
    ),
    PAY_SP_MCH_ID: (production ? z.string().min(1).optional() : z.string().min(1).default('1900000109')).describe(
      "The service provider's merchant number at the platform.",
    ),
  };
}

export type SocialSettings = z.output<z.ZodObject<ReturnType<typeof socialSettings>>>;

/**
 * On v3, a configuration that names any of its keys, or a production one with a gateway, must be
 * complete and parse: refused at startup naming the setting, not at the first payment. With none
 * of them outside production the development key material is used (docs/payments.md).
 */
export function socialV3Problem(c: SocialSettings & { NODE_ENV: string }): string | null {
  if (c.PAY_PROTOCOL !== 'v3') return null;
  const anySet = V3_KEY_SETTINGS.some((k) => c[k] !== undefined);
  if (!anySet && !(c.NODE_ENV === 'production' && c.PAY_GATEWAY_URL)) return null;
  try {
    v3Credentials(c);
    return null;
  } catch (e) {
    if (e instanceof V3SettingsError) return e.message;
    throw e;
  }
}
