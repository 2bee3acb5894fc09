/**
 * `SocialNative`: the social app's payment platform in service-provider mode (4.3–4.5, 4.8), over
 * API v3 (`v3/`, the default) or protocol v2 (2.4) as `PAY_PROTOCOL` says. The service provider's app id and merchant number come from configuration,
 * the sub-merchant's from its payment parameters (falling back field by field to its parent).
 */
import type { ChannelParams } from '@kit/shared';
import type { ChannelModule, MerchantFields } from '../types';
import { definedOnly, missing, unconfigured } from '../params';
import { profitSharingV2 } from './profit-sharing-v2';
import { billsV2 } from './bill-v2';
import { SocialV3 } from './v3/v3-channel';
import { V3_KEY_SETTINGS } from './v3/credentials';

export const socialNative: ChannelModule<'social'> = {
  channel: 'SocialNative',
  realm: 'social',
  description: 'the social payment platform',
  tradeTypes: ['NATIVE', 'JSAPI', 'APP'],
  gatewayUrl: (config) => config.PAY_GATEWAY_URL,
  gatewaySetting: 'PAY_GATEWAY_URL',
  missingSettings(config) {
    const real = !!config.PAY_GATEWAY_URL || !config.SANDBOX_ENABLED;
    // v3 outside production uses generated development keys when none is set (docs/payments.md).
    const v3Keys = config.PAY_PROTOCOL === 'v3' && config.production && !V3_KEY_SETTINGS.some((k) => config[k] !== undefined);
    return [
      real && !config.PAY_GATEWAY_URL && 'PAY_GATEWAY_URL',
      !config.PAY_SP_APPID && 'PAY_SP_APPID',
      !config.PAY_SP_MCH_ID && 'PAY_SP_MCH_ID',
      ...(v3Keys ? ['PAY_SP_PRIVATE_KEY', 'PAY_SP_CERT_SERIAL', 'PAY_V3_KEY'] : []),
      config.PAY_PROTOCOL === 'v2' && !config.PAY_SP_KEY && 'PAY_SP_KEY',
    ].filter((s): s is string => !!s);
  },
  adapter(config, endpoints) {
    return {
      channel: 'SocialNative',
      realm: 'social',
      tradeTypes: socialNative.tradeTypes,
      endpoint() {
        const baseUrl = endpoints.gatewayOf(socialNative);
        if (!config.PAY_SP_KEY) unconfigured('PAY_SP_KEY');
        return { baseUrl, key: config.PAY_SP_KEY, timeoutMs: config.PAY_GATEWAY_TIMEOUT };
      },
      merchantFields(params, tradeType, openId) {
        const p = params as Partial<ChannelParams['SocialNative']>;
        const lacking = [!p.socialMchId && 'socialMchId', tradeType === 'APP' && !p.socialAppId && 'socialAppId'].filter(Boolean) as string[];
        if (lacking.length) missing('SocialNative', lacking);
        if (!config.PAY_SP_APPID || !config.PAY_SP_MCH_ID) unconfigured('PAY_SP_APPID and PAY_SP_MCH_ID');
        const f: MerchantFields = { appid: config.PAY_SP_APPID, mch_id: config.PAY_SP_MCH_ID, sub_mch_id: p.socialMchId! };
        if (tradeType === 'JSAPI') {
          // The payer's open id belongs to the mini-program, so the order is placed for it.
          if (!config.MP_APPID) unconfigured('MP_APPID');
          f.sub_appid = config.MP_APPID;
          f.sub_openid = openId;
        } else if (p.socialAppId) {
          f.sub_appid = p.socialAppId;
        }
        return f;
      },
      payerAppId: (f) => f.sub_appid ?? f.appid,
      // `partnerid` of the service provider's app payment (APP调起支付) differs by protocol. v2: the
      // sub-merchant's number (服务商 APP调起支付, pay.weixin.qq.com/doc/v2/partner/4011986561:
      // 子商户号 partnerid, 子商户的商户号). v3: the service provider's own, `sp_mchid` (wechatpay-java
      // service/partnerpayments/app/AppServiceExtension.prepayWithRequestPayment sets partnerId to the
      // request's sp_mchid; the v3 服务商 APP调起支付 asks for 商户号 mchid, the one that signs `sign`).
      appArgsIds: (f, protocol) => ({ appid: f.sub_appid ?? f.appid, partnerid: protocol === 'v3' ? f.mch_id : (f.sub_mch_id ?? f.mch_id) }),
      requestIds: (f) => definedOnly({ appid: f.appid, mch_id: f.mch_id, sub_appid: f.sub_appid, sub_mch_id: f.sub_mch_id }),
    };
  },
  profitSharing: profitSharingV2,
  bills: billsV2,
  v3: (config, baseUrl, notifyUrl, log) => (config.PAY_PROTOCOL === 'v3' ? new SocialV3(config, baseUrl, notifyUrl, log) : undefined),
  sandbox: {
    pathPrefix: '',
    key: (config) => config.PAY_SP_KEY ?? '',
    merchantProblem: (config, f) =>
      f.appid !== config.PAY_SP_APPID
        ? 'appid is not this service provider'
        : f.mch_id !== config.PAY_SP_MCH_ID
          ? 'mch_id is not this service provider'
          : !f.sub_mch_id
            ? 'sub_mch_id missing'
            : null,
    sharesProfits: true,
  },
};
