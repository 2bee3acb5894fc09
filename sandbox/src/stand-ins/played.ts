/**
 * Which providers the sandbox plays with a configuration, and the settings it hands them
 * (`DevPlugin.plays`): a provider with a stand-in whose gateway the operator left unset; Alipay when
 * the operator gave none of its key settings (outside production), with the development keys the
 * sandbox generated into DATA_DIR (`../alipay/dev-keys.ts`) in place of the operator's.
 */
import type { Config } from '@kit/server/config';
import { ALIPAY_KEY_SETTINGS } from '@kit/server/payments/providers/alipay/settings';
import type { ProviderModule } from '@kit/server/payments/providers/provider';
import { devAlipayMaterial } from '../alipay/dev-keys';
import { standInOf } from './index';

/** Development with no Alipay key setting: the sandbox plays Alipay. */
export const alipayPlayed = (config: Config): boolean => !config.production && !ALIPAY_KEY_SETTINGS.some((k) => !!config[k]?.trim());

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

export function sandboxPlays(provider: ProviderModule, config: Config): { settings: Record<string, string> } | undefined {
  if (!standInOf(provider)) return undefined;
  if (provider.id === 'alipay') return alipayPlayed(config) ? { settings: alipayDevSettings(config.DATA_DIR) } : undefined;
  return provider.gatewayUrl(config as never) ? undefined : { settings: {} };
}
