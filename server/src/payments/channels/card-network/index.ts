/**
 * `SocialCardNetworkBizSmall`: a card-network acquirer that speaks protocol v2 with its own key and
 * returns the same mini-program arguments (2.4); mini-program payments only, no profit sharing.
 */
import type { ChannelParams } from '@kit/shared';
import type { ChannelModule } from '../types';
import { definedOnly, missing, unconfigured } from '../params';

export const cardNetwork: ChannelModule<'card'> = {
  channel: 'SocialCardNetworkBizSmall',
  realm: 'card',
  description: 'the card-network acquirer',
  tradeTypes: ['JSAPI'],
  gatewayUrl: (config) => config.CARD_GATEWAY_URL,
  gatewaySetting: 'CARD_GATEWAY_URL',
  missingSettings: (config) =>
    [!config.CARD_GATEWAY_URL && !config.SANDBOX_ENABLED && 'CARD_GATEWAY_URL', !config.CARD_KEY && 'CARD_KEY', !config.MP_APPID && 'MP_APPID'].filter(
      (s): s is string => !!s,
    ),
  adapter(config, endpoints) {
    return {
      channel: 'SocialCardNetworkBizSmall',
      realm: 'card',
      tradeTypes: cardNetwork.tradeTypes,
      endpoint() {
        const baseUrl = endpoints.gatewayOf(cardNetwork);
        if (!config.CARD_KEY) unconfigured('CARD_KEY');
        return { baseUrl, key: config.CARD_KEY, timeoutMs: config.PAY_GATEWAY_TIMEOUT };
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
  },
  sandbox: {
    pathPrefix: '/card',
    key: (config) => config.CARD_KEY ?? '',
    merchantProblem: (_config, f) => (!f.mch_id ? 'mch_id missing' : !f.device_info ? 'device_info (terminal id) missing' : null),
    sharesProfits: false,
  },
};
