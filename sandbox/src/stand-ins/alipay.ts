/**
 * Alipay's stand-in (`sandbox/src/alipay/`): its gateway and payer under `/sandbox/alipay` (its part,
 * `../alipay/part.ts`). It plays Alipay in development when the operator gave none of Alipay's key
 * settings, handing the provider the development keys generated into DATA_DIR
 * (`../alipay/dev-keys.ts`) as its settings.
 */
import type { Config } from '@kit/server/plugins/dev-plugin';
import { devAlipayMaterial } from '../alipay/dev-keys';
import { alipayPart } from '../alipay/part';
import { defineStandIn } from './stand-in';

/**
 * The operator's Alipay settings that give an app of their own (docs/configuration.md): any of them
 * set, the sandbox leaves Alipay to the operator's app (the provider then requires the rest).
 */
const ALIPAY_APP_SETTINGS = [
  'ALIPAY_APP_ID',
  'ALIPAY_PRIVATE_KEY',
  'ALIPAY_PUBLIC_KEY',
  'ALIPAY_APP_CERT',
  'ALIPAY_PUBLIC_CERT',
  'ALIPAY_ROOT_CERT',
  'ALIPAY_MINI_APP_ID',
] as const;

/** Development with no Alipay key setting: the sandbox plays Alipay. */
export const alipayPlayed = (config: Config): boolean => !config.production && !ALIPAY_APP_SETTINGS.some((k) => !!config[k]?.trim());

/** The settings a played Alipay is handed: the development app id, the application's private key, Alipay's public key, the mini app id. */
function alipayDevSettings(dataDir: string): Record<string, string> {
  const dev = devAlipayMaterial(dataDir);
  return {
    ALIPAY_APP_ID: dev.appId,
    ALIPAY_PRIVATE_KEY: dev.appPrivateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    ALIPAY_PUBLIC_KEY: dev.alipayPublicKey.export({ format: 'pem', type: 'spki' }).toString(),
    ALIPAY_MINI_APP_ID: dev.miniAppId,
  };
}

export const alipayStandIn = defineStandIn<Config, typeof alipayPart>({
  provider: 'alipay',
  realm: 'alipay',
  description: 'Alipay',
  // The kit's trade-type column of its flows (scan, mini-program, app, wap, code); its own routes take Alipay's methods, not a trade_type.
  tradeTypes: ['NATIVE', 'WALLET_MINI', 'APP', 'WAP', 'MICROPAY'],
  pathPrefix: '/alipay',
  gatewayPath: '/alipay/gateway.do',
  // It signs with RSA keys (the development keys in DATA_DIR), not a protocol-v2 key.
  key: () => '',
  merchantProblem: (_config, f) => (!f.app_auth_token ? 'app_auth_token missing' : null),
  sharesProfits: false,
  publishesBills: false,
  ownRoutes: true,
  plays: (config) => (alipayPlayed(config) ? { settings: alipayDevSettings(config.DATA_DIR) } : undefined),
  part: alipayPart,
  // Its payment codes: 16–24 digits starting 25–30.
  codes: { wallet: 'alipay', prefix: '28' },
});
