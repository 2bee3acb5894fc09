/**
 * The social payment platform's stand-in, for both of its protocols: API v3 (`social-v3`) and
 * protocol v2 (`social-v2`). It plays the platform when the operator left its gateway setting
 * (`PAY_GATEWAY_URL`) unset; and outside production, by the rule Alipay's stand-in follows
 * (`./alipay.ts`), it hands the provider the development keys generated into DATA_DIR
 * (`../v3/dev-credentials.ts`) when the operator gave none of them. A service whose gateway is
 * another instance's sandbox is not played: it is given the keys as settings, as the operator's.
 */
import type { Config } from '@kit/server/plugins/dev-plugin';
import { devClientCertificate, devV3Material } from '../v3/dev-credentials';
import { defineStandIn } from './stand-in';

/** The service provider's ids, the settings of both of the platform's protocols (docs/configuration.md). */
export interface SocialSettings {
  PAY_SP_APPID?: string;
  PAY_SP_MCH_ID?: string;
}

/** The operator's API v3 key settings (docs/configuration.md): any of them given, the provider is handed none (it then requires the rest). */
const V3_KEY_SETTINGS = ['PAY_SP_PRIVATE_KEY', 'PAY_SP_CERT_SERIAL', 'PAY_V3_KEY', 'PAY_PLATFORM_PUBLIC_KEY', 'PAY_PLATFORM_PUBLIC_KEY_ID'] as const;

/** Protocol v2's merchant API certificate settings (docs/configuration.md): any of them given, the provider is handed none. */
const V2_CLIENT_CERTIFICATE_SETTINGS = ['PAY_V2_CLIENT_CERT', 'PAY_V2_CLIENT_KEY', 'PAY_V2_CLIENT_P12', 'PAY_V2_CLIENT_P12_PASSWORD'] as const;

type PlayedConfig = Pick<Config, 'production' | 'DATA_DIR'> & { PAY_GATEWAY_URL?: string; PAY_PROTOCOL?: string } & Partial<
    Record<(typeof V3_KEY_SETTINGS)[number] | (typeof V2_CLIENT_CERTIFICATE_SETTINGS)[number], string>
  >;

const given = (config: PlayedConfig, keys: readonly (keyof PlayedConfig)[]) => keys.some((k) => !!String(config[k] ?? '').trim());

/**
 * The platform plays with its gateway setting unset; outside production with none of `keys` given
 * it hands the provider `dev()` as its settings, else nothing (a production service, or one with
 * keys of its own, is refused or served by them, naming the settings).
 */
function playsWith(keys: readonly (keyof PlayedConfig)[], dev: (config: PlayedConfig) => Record<string, string>) {
  return (config: PlayedConfig): { settings: Record<string, string> } | undefined =>
    config.PAY_GATEWAY_URL ? undefined : { settings: !config.production && !given(config, keys) ? dev(config) : {} };
}

/** The platform: its notification realm, its name, and the trade types of its unified order (scan, mini-program / JSAPI, app). */
const SOCIAL = { realm: 'social', description: 'the social payment platform', tradeTypes: ['NATIVE', 'JSAPI', 'APP'] } as const;

/** The merchant of a call: this service provider's, acting for a sub-merchant. */
export function socialMerchantProblem(config: SocialSettings, f: Record<string, string>): string | null {
  return f.appid !== config.PAY_SP_APPID
    ? 'appid is not this service provider'
    : f.mch_id !== config.PAY_SP_MCH_ID
      ? 'mch_id is not this service provider'
      : !f.sub_mch_id
        ? 'sub_mch_id missing'
        : null;
}

export const socialV3StandIn = defineStandIn<SocialSettings & PlayedConfig>({
  provider: 'social-v3',
  ...SOCIAL,
  pathPrefix: '',
  // The stand-in's protocol-v2 endpoints are `social-v2`'s; API v3 needs no shared key.
  key: () => '',
  merchantProblem: socialMerchantProblem,
  sharesProfits: true,
  publishesBills: true,
  // The development merchant's private key, certificate serial, APIv3 key and the platform's public key and id.
  plays: playsWith(V3_KEY_SETTINGS, (config) => ({ ...devV3Material(config.DATA_DIR).settings })),
  // API v3's `codepay` charges them (protocol v2's `micropay` the same codes).
  codes: { wallet: 'social', prefix: '13' },
});

export const socialV2StandIn = defineStandIn<SocialSettings & PlayedConfig & { PAY_SP_KEY?: string }>({
  provider: 'social-v2',
  ...SOCIAL,
  pathPrefix: '',
  key: (config) => config.PAY_SP_KEY ?? '',
  merchantProblem: socialMerchantProblem,
  sharesProfits: true,
  publishesBills: true,
  // The development merchant API certificate its `/secapi/` calls present, made only for a service on protocol v2.
  plays: playsWith(V2_CLIENT_CERTIFICATE_SETTINGS, (config): Record<string, string> => {
    if (config.PAY_PROTOCOL !== 'v2') return {};
    const tls = devClientCertificate(config.DATA_DIR);
    return { PAY_V2_CLIENT_CERT: tls.cert, PAY_V2_CLIENT_KEY: tls.key };
  }),
  // Protocol v2's `micropay` charges them.
  codes: { wallet: 'social', prefix: '13' },
});
