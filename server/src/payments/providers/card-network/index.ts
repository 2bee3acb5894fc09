/**
 * `card-network`: channel `SocialCardNetworkBizSmall`, a card-network acquirer that speaks protocol
 * v2 with its own key and returns the same mini-program arguments (2.4); mini-program payments
 * only, for sub-merchants whose parameters name it (4.4), no profit sharing, no daily bill.
 */
import { socialPay, socialWallet } from '@kit/shared/wallets';
import type { ChannelParams } from '@kit/shared';
import { definedOnly, missing, unconfigured } from '../protocol-v2/merchant';
import { v2NotificationDoc } from '../protocol-v2/notification-doc';
import type { SignType } from '../protocol-v2/sign';
import type { ChannelAdapter } from '../protocol-v2/types';
import { V2Provider } from '../protocol-v2/v2-provider';
import { defineProvider } from '../provider';
import { cardNetworkSettings } from './settings';

export const cardNetwork = defineProvider({
  id: 'card-network',
  channel: 'SocialCardNetworkBizSmall',
  realm: 'card',
  description: 'the card-network acquirer',
  flows: ['miniProgram'],
  wallet: socialWallet,
  ways: [socialPay],
  settings: cardNetworkSettings,
  active: () => true,
  gatewayUrl: (config) => config.CARD_GATEWAY_URL,
  gatewaySetting: 'CARD_GATEWAY_URL',
  missingSettings: (config) =>
    [!config.CARD_GATEWAY_URL && 'CARD_GATEWAY_URL', !config.CARD_KEY && 'CARD_KEY', !config.MP_APPID && 'MP_APPID'].filter((s): s is string => !!s),
  create(config, ctx) {
    const adapter: ChannelAdapter = {
      channel: 'SocialCardNetworkBizSmall',
      endpoint() {
        const baseUrl = ctx.gateway();
        if (!config.CARD_KEY) unconfigured('CARD_KEY');
        return { baseUrl, key: config.CARD_KEY, timeoutMs: config.PAY_GATEWAY_TIMEOUT, clock: ctx.clock };
      },
      merchantFields(params, _tradeType, openId) {
        const p = params as Partial<ChannelParams['SocialCardNetworkBizSmall']>;
        const lacking = [!p.cardNetworkBizMchId && 'cardNetworkBizMchId', !p.terminalId && 'terminalId'].filter(Boolean) as string[];
        if (lacking.length) missing('SocialCardNetworkBizSmall', lacking);
        if (!config.MP_APPID) unconfigured('MP_APPID');
        return { appid: config.MP_APPID, mch_id: p.cardNetworkBizMchId!, device_info: p.terminalId!, openid: openId };
      },
      payerAppId: (f) => f.appid,
      appArgsIds: (f) => ({ appid: f.appid, partnerid: f.mch_id }),
      requestIds: (f) => definedOnly({ appid: f.appid, mch_id: f.mch_id, device_info: f.device_info }),
    };
    return new V2Provider(adapter, {
      id: 'card-network',
      realm: 'card',
      flows: ['miniProgram'],
      // Signed as protocol v2's orders are (PAY_SIGN_TYPE, `social-v2`'s setting, while that provider is there).
      signType: () => (config as { PAY_SIGN_TYPE?: SignType }).PAY_SIGN_TYPE ?? 'HMAC-SHA256',
      notifyUrl: ctx.notifyUrl,
      // The sub-merchant (or its parent) with the acquirer's parameters pays through it.
      // Its merchant number names its lines at the platform.
      accountOf: (params) => (params as Partial<ChannelParams['SocialCardNetworkBizSmall']>).cardNetworkBizMchId || undefined,
      picks: (params) => {
        const p = params as Partial<ChannelParams['SocialCardNetworkBizSmall']>;
        return !!(p.cardNetworkBizMchId || p.terminalId);
      },
    });
  },
  notificationDoc: v2NotificationDoc('`card`, and `social` with `PAY_PROTOCOL=v2`'),
});
