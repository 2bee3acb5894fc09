/**
 * `social-v2`'s settings section: the key protocol v2 signs with, the sign type of new orders, and
 * the merchant API certificate its `/secapi/` calls present (`client-certificate.ts`). The
 * platform's address and service-provider ids are `social-v3`'s section (one platform).
 */
import { z } from 'zod';
import { ClientCertificateError, clientTlsOf, type ClientCertificateSettings } from './client-certificate';

export function socialV2Settings(production: boolean) {
  return {
    PAY_SP_KEY: (production ? z.string().min(1).optional() : z.string().min(1).default('sandboxSandboxSandboxSandbox0001')).describe(
      "v2: the service provider's API key at the platform (signs protocol messages). In production, without it and a gateway URL the payment endpoints answer 503 `channel_unavailable` saying what to set.",
    ),
    PAY_SIGN_TYPE: z.enum(['MD5', 'HMAC-SHA256']).default('HMAC-SHA256').describe('v2: sign type of new channel orders (v3 signs with RSA).'),
    PAY_V2_CLIENT_CERT: z
      .string()
      .min(1)
      .optional()
      .describe(
        "v2: the service provider's merchant API certificate (`apiclient_cert.pem`), PEM text or the path of the PEM file, with `PAY_V2_CLIENT_KEY`: presented as the TLS client certificate on every `/secapi/` call (refunds, profit-sharing splits, reversing a payment code), which the platform refuses without it. Or `PAY_V2_CLIENT_P12`. Unset outside production while the sandbox plays the platform (`PAY_GATEWAY_URL` unset): the sandbox's development certificate in `DATA_DIR/pay-v3/`; unset otherwise: those calls over HTTPS answer 503 `channel_unavailable`, and in production payment codes are not taken (docs/payments.md).",
      ),
    PAY_V2_CLIENT_KEY: z
      .string()
      .min(1)
      .optional()
      .describe('v2: the private key of `PAY_V2_CLIENT_CERT` (`apiclient_key.pem`), PEM text or the path of the PEM file.'),
    PAY_V2_CLIENT_P12: z
      .string()
      .min(1)
      .optional()
      .describe(
        "v2: instead of `PAY_V2_CLIENT_CERT` and `PAY_V2_CLIENT_KEY`, the same certificate as the PKCS#12 file (`apiclient_cert.p12`): its path, or its bytes in base64. A file with the legacy RC2 cipher (older downloads) does not open under Node's OpenSSL 3: use the PEM files of the same download.",
      ),
    PAY_V2_CLIENT_P12_PASSWORD: z
      .string()
      .optional()
      .describe("v2: the password of `PAY_V2_CLIENT_P12` (the platform's download sets it to the merchant number)."),
  };
}

export type SocialV2Settings = z.output<z.ZodObject<ReturnType<typeof socialV2Settings>>>;

/** On v2, client certificate settings that are incomplete, unreadable or do not belong together stop the start, naming the setting. */
export function socialV2Problem(c: ClientCertificateSettings & { PAY_PROTOCOL: string }): string | null {
  if (c.PAY_PROTOCOL !== 'v2') return null;
  try {
    clientTlsOf(c);
    return null;
  } catch (e) {
    if (e instanceof ClientCertificateError) return e.message;
    throw e;
  }
}
