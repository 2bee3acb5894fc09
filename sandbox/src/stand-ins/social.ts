/** The social payment platform's stand-in, for both of its protocols: API v3 (`social-v3`) and protocol v2 (`social-v2`). */
import { defineStandIn } from './stand-in';

/** The service provider's ids, the settings of both of the platform's protocols (docs/configuration.md). */
export interface SocialSettings {
  PAY_SP_APPID?: string;
  PAY_SP_MCH_ID?: string;
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

export const socialV3StandIn = defineStandIn<SocialSettings>({
  provider: 'social-v3',
  ...SOCIAL,
  pathPrefix: '',
  // The stand-in's protocol-v2 endpoints are `social-v2`'s; API v3 needs no shared key.
  key: () => '',
  merchantProblem: socialMerchantProblem,
  sharesProfits: true,
  publishesBills: true,
  // API v3's `codepay` charges them (protocol v2's `micropay` the same codes).
  codes: { wallet: 'social', prefix: '13' },
});

export const socialV2StandIn = defineStandIn<SocialSettings & { PAY_SP_KEY?: string }>({
  provider: 'social-v2',
  ...SOCIAL,
  pathPrefix: '',
  key: (config) => config.PAY_SP_KEY ?? '',
  merchantProblem: socialMerchantProblem,
  sharesProfits: true,
  publishesBills: true,
  // Protocol v2's `micropay` charges them.
  codes: { wallet: 'social', prefix: '13' },
});
