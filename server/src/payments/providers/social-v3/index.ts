/**
 * `social-v3`: the social app's payment platform in service-provider mode (4.3–4.5, 4.8) over API
 * v3, the default (`PAY_PROTOCOL=v3`). Its settings section holds the platform's too (address,
 * service-provider ids), which `social-v2` shares.
 */
import { socialWallet } from '@kit/shared/wallets';
import { z } from 'zod';
import { json } from '../../../openapi/describe';
import { unconfigured } from '../protocol-v2/merchant';
import { defineProvider } from '../provider';
import { V3_KEY_SETTINGS } from './credentials';
import { socialAdapter } from './merchant';
import { SocialV3Provider } from './provider';
import { socialSettings, socialV3Problem } from './settings';
import { SocialV3 } from './v3-channel';

const notification = json(
  z
    .object({
      id: z.string().openapi({ description: 'The notification id (the same for repeats of one notification)' }),
      create_time: z.string().openapi({ description: 'RFC 3339' }),
      event_type: z.string().openapi({ description: '`TRANSACTION.SUCCESS` (pay) or `REFUND.SUCCESS` / `REFUND.ABNORMAL` / `REFUND.CLOSED` (refund)' }),
      resource_type: z.literal('encrypt-resource'),
      summary: z.string().optional(),
      resource: z.object({
        algorithm: z.literal('AEAD_AES_256_GCM'),
        ciphertext: z
          .string()
          .openapi({ description: 'Base64 of the encrypted transaction or refund JSON followed by its 16-byte tag, under the APIv3 key (PAY_V3_KEY)' }),
        associated_data: z.string().optional(),
        nonce: z.string(),
        original_type: z.string().openapi({ description: '`transaction` or `refund`' }),
      }),
    })
    .openapi({ description: 'API v3 (`social` with `PAY_PROTOCOL=v3`, the default): the notification envelope, signed in the `Wechatpay-*` headers' }),
);
const header = (what: string) =>
  z
    .string()
    .optional()
    .openapi({ description: `API v3 only: ${what}` });

export const socialV3 = defineProvider({
  id: 'social-v3',
  channel: 'SocialNative',
  realm: 'social',
  description: 'the social payment platform',
  payerBrowser: socialWallet.payerBrowser,
  flows: ['scan', 'miniProgram', 'app'],
  wallet: socialWallet,
  ways: socialWallet.ways,
  settings: socialSettings,
  settingsProblem: socialV3Problem,
  active: (config) => config.PAY_PROTOCOL === 'v3',
  gatewayUrl: (config) => config.PAY_GATEWAY_URL,
  gatewaySetting: 'PAY_GATEWAY_URL',
  missingSettings(config) {
    // None set: missing everywhere (a development plug-in that plays the platform hands its own keys as settings: `played.ts`).
    const keys = !V3_KEY_SETTINGS.some((k) => config[k] !== undefined);
    return [
      !config.PAY_GATEWAY_URL && 'PAY_GATEWAY_URL',
      !config.PAY_SP_APPID && 'PAY_SP_APPID',
      !config.PAY_SP_MCH_ID && 'PAY_SP_MCH_ID',
      ...(keys ? ['PAY_SP_PRIVATE_KEY', 'PAY_SP_CERT_SERIAL', 'PAY_V3_KEY'] : []),
    ].filter((s): s is string => !!s);
  },
  create(config, ctx) {
    const adapter = socialAdapter(config, () => unconfigured('PAY_PROTOCOL=v2 for protocol v2 calls'));
    const side = new SocialV3(config, () => ctx.gateway(), ctx.notifyUrl, ctx.clock, ctx.log);
    return new SocialV3Provider(adapter, side);
  },
  notificationDoc: {
    protocol: 'API v3',
    body: notification,
    headers: {
      'Wechatpay-Timestamp': header('Unix time in seconds, within 5 minutes of the service clock'),
      'Wechatpay-Nonce': header('the nonce the signature covers'),
      'Wechatpay-Signature': header('base64 SHA256-with-RSA over `TIMESTAMP\\nNONCE\\nBODY\\n`; one starting `WECHATPAY/SIGNTEST/` is a probe and is refused'),
      'Wechatpay-Serial': header('the platform public-key id (`PUB_KEY_ID_…`) or certificate serial whose key verifies it'),
    },
    ack: { status: 204, description: 'API v3: acknowledged (no body)' },
    refusal: json(z.object({ code: z.literal('FAIL'), message: z.string() }).openapi({ description: 'API v3: the platform repeats the notification' })),
  },
});
