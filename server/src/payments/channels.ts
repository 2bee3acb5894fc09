/**
 * Channel adapters (docs/payments.md). Both channels speak protocol v2; they differ in the gateway, the
 * key, which merchant parameters they need and how those map onto request fields. The parameters
 * come from the sub-merchant, falling back field by field to its parent.
 */
import { KitError, type ChannelParams, type PaymentChannel } from '@kit/shared';
import type { Config } from '../config';
import type { ProtocolEndpoint } from './protocol/client';

export type Realm = 'social' | 'card';
export type TradeType = 'NATIVE' | 'JSAPI' | 'APP';

/** Who the channel order is for, as sent in the unified order and checked on notifications. */
export interface MerchantFields {
  appid: string;
  mch_id: string;
  sub_appid?: string;
  sub_mch_id?: string;
  device_info?: string;
  openid?: string;
  sub_openid?: string;
}

export interface ChannelAdapter {
  channel: PaymentChannel;
  realm: Realm;
  tradeTypes: readonly TradeType[];
  endpoint(): ProtocolEndpoint;
  /** Request fields for the merchant; throws `payment_params_missing` naming what is missing. */
  merchantFields(params: Partial<ChannelParams[PaymentChannel]>, tradeType: TradeType, openId?: string): MerchantFields;
  /** The app id the mini-program payment signature (`paySign`) is computed with. */
  payerAppId(f: MerchantFields): string;
  /** The app id and merchant number the app payment arguments carry. */
  appArgsIds(f: MerchantFields): { appid: string; partnerid: string };
  /**
   * The fields naming the merchant on every call about an existing order (query, close, refund,
   * refund query): the card acquirer also wants the terminal (`device_info`) each time.
   */
  requestIds(f: MerchantFields): Record<string, string>;
}

/** Where the gateways are: configuration, or this service's own sandbox when it runs one. */
export class Gateways {
  private selfUrl = '';
  constructor(private readonly config: Config) {}

  attach(selfUrl: string): void {
    this.selfUrl = selfUrl.replace(/\/+$/, '');
  }

  private sandbox(suffix: string): string | undefined {
    return this.config.SANDBOX_ENABLED && this.selfUrl ? `${this.selfUrl}/sandbox${suffix}` : undefined;
  }

  payUrl(): string | undefined {
    return this.config.PAY_GATEWAY_URL ?? this.sandbox('');
  }

  cardUrl(): string | undefined {
    return this.config.CARD_GATEWAY_URL ?? this.sandbox('/card');
  }

  /** Base URL the channel sends notifications to. */
  publicUrl(): string {
    return (this.config.PUBLIC_URL ?? this.selfUrl).replace(/\/+$/, '');
  }
}

function missing(channel: PaymentChannel, fields: string[]): never {
  throw new KitError(
    'payment_params_missing',
    `${channel} payment parameters missing on the sub-merchant and its parent: ${fields.join(', ')} (set them with PUT /merchant/paymentParams)`,
  );
}

function unconfigured(what: string): never {
  throw new KitError('channel_unavailable', `the payment channel is not configured: set ${what}`);
}

export function socialNativeAdapter(config: Config, gateways: Gateways): ChannelAdapter {
  return {
    channel: 'SocialNative',
    realm: 'social',
    tradeTypes: ['NATIVE', 'JSAPI', 'APP'],
    endpoint() {
      const baseUrl = gateways.payUrl();
      if (!baseUrl) unconfigured('PAY_GATEWAY_URL (or SANDBOX_ENABLED=1)');
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
    appArgsIds: (f) => ({ appid: f.sub_appid ?? f.appid, partnerid: f.sub_mch_id ?? f.mch_id }),
    requestIds: (f) => definedOnly({ appid: f.appid, mch_id: f.mch_id, sub_appid: f.sub_appid, sub_mch_id: f.sub_mch_id }),
  };
}

export function cardNetworkAdapter(config: Config, gateways: Gateways): ChannelAdapter {
  return {
    channel: 'SocialCardNetworkBizSmall',
    realm: 'card',
    tradeTypes: ['JSAPI'],
    endpoint() {
      const baseUrl = gateways.cardUrl();
      if (!baseUrl) unconfigured('CARD_GATEWAY_URL (or SANDBOX_ENABLED=1)');
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
}

/** The fields that have a value, as protocol text. */
export function definedOnly(o: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') out[k] = String(v);
  return out;
}
