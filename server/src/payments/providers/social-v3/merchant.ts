/**
 * How the social payment platform names a merchant in service-provider mode (4.3–4.5, 4.8), on
 * either protocol: the service provider's app id and merchant number from the settings, the
 * sub-merchant's from its payment parameters (falling back field by field to its parent).
 * `social-v2` names merchants the same way.
 */
import type { ChannelParams } from '@kit/shared';
import type { ProtocolEndpoint } from '../protocol-v2/client';
import { definedOnly, missing, unconfigured } from '../protocol-v2/merchant';
import type { ChannelAdapter, MerchantFields } from '../protocol-v2/types';
import type { ServiceSettings, StoredParams } from '../provider';
import type { SocialSettings } from './settings';

/** The sub-merchant's number (`sub_mch_id`): what the service provider's bill names each line's merchant by. */
export const socialAccountOf = (params: StoredParams): string | undefined => (params as Partial<ChannelParams['SocialNative']>).socialMchId || undefined;

/** The platform's adapter; `endpoint` is the protocol-v2 gateway and key (v2 only: v3 has its own client). */
export function socialAdapter(config: ServiceSettings & SocialSettings, endpoint: () => ProtocolEndpoint): ChannelAdapter {
  return {
    channel: 'SocialNative',
    endpoint,
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
    // `appid` of the app payment is the app the order was placed for, the sub-merchant's (`sub_appid`,
    // its socialAppId, which an APP order always carries), on both protocols: the v2 service-provider
    // guide (pay.weixin.qq.com/doc/v2/partner/4011941134: appid和partnerid都不是服务商的参数，appid是子商户的
    // 应用APPID) and the v3 服务商 APP调起支付 (为二级商户申请的应用appid); the app's own SDK refuses
    // another app's id. The v2 field table's "服务商申请的…appid" is the case of an order placed without
    // sub_appid, which the kit never places for APP (WxJava's v2 createOrder: sub_appid when set).
    // `partnerid` of the service provider's app payment (APP调起支付) differs by protocol. v2: the
    // sub-merchant's number (服务商 APP调起支付, pay.weixin.qq.com/doc/v2/partner/4011986561:
    // 子商户号 partnerid, 子商户的商户号). v3: the service provider's own, `sp_mchid` (wechatpay-java
    // service/partnerpayments/app/AppServiceExtension.prepayWithRequestPayment sets partnerId to the
    // request's sp_mchid; the v3 服务商 APP调起支付 asks for 商户号 mchid, the one that signs `sign`).
    appArgsIds: (f, protocol) => ({ appid: f.sub_appid ?? f.appid, partnerid: protocol === 'v3' ? f.mch_id : (f.sub_mch_id ?? f.mch_id) }),
    requestIds: (f) => definedOnly({ appid: f.appid, mch_id: f.mch_id, sub_appid: f.sub_appid, sub_mch_id: f.sub_mch_id }),
  };
}
