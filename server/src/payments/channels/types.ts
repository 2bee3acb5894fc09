/** What a payment channel module is (docs/payments.md): the registry (registry.ts) lists them. */
import type { ChannelParams, PaymentChannel } from '@kit/shared';
import type { Config } from '../../config';
import type { ProtocolAnswer, ProtocolEndpoint } from '../protocol/client';
import type { Fields } from '../protocol/xml';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../db/schema';
import type { ChannelEndpoints } from './endpoints';
import type { V3CallLog } from './social-native/v3/client';
import type { V3AppArgs, V3MiniProgramArgs } from './social-native/v3/payer-args';
import type { SignedHeaders } from './social-native/v3/verify';

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

/**
 * A channel's adapter; `R` is its realm (the registry, `registry.ts`, narrows it to the union of
 * the listed modules' realms, `Realm`: this file does not import the list the modules are typed by).
 */
export interface ChannelAdapter<R extends string = string> {
  channel: PaymentChannel;
  realm: R;
  tradeTypes: readonly TradeType[];
  endpoint(): ProtocolEndpoint;
  /** Request fields for the merchant; throws `payment_params_missing` naming what is missing. */
  merchantFields(params: Partial<ChannelParams[PaymentChannel]>, tradeType: TradeType, openId?: string): MerchantFields;
  /** The app id the mini-program payment signature (`paySign`) is computed with. */
  payerAppId(f: MerchantFields): string;
  /** The app id and merchant number the app payment arguments (4.5) carry, by the protocol the order was placed over. */
  appArgsIds(f: MerchantFields, protocol: 'v2' | 'v3'): { appid: string; partnerid: string };
  /**
   * The fields naming the merchant on every call about an existing order (query, close, refund,
   * refund query): the card acquirer also wants the terminal (`device_info`) each time.
   */
  requestIds(f: MerchantFields): Record<string, string>;
}

/** What the unified order needs to know about the prepay order. */
export interface OrderForChannel {
  prepay_id: string;
  display_name: string;
  total_cents: number;
  expire_at: number;
}

/** The channel's calls about orders and refunds, in one protocol; answers in the services' vocabulary. */
export interface OrderCalls {
  unifiedOrder(co: PayChannelOrdersTable, order: OrderForChannel): Promise<ProtocolAnswer>;
  orderQuery(co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
  closeOrder(co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
  refund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
  refundQuery(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
}

/** The channel's profit-sharing calls (4.8), for the channels that share profits. */
export interface ProfitSharingCalls {
  /** Adds a receiver for the merchant numbered `merchant.sub_mch_id` (idempotent at the channel). */
  addReceiver(
    merchant: MerchantFields,
    receiver: { type: string; account: string; name?: string | null; relationType: string; customRelation?: string | null },
  ): Promise<ProtocolAnswer>;
  removeReceiver(merchant: MerchantFields, receiver: { type: string; account: string }): Promise<ProtocolAnswer>;
  /** One split of a paid order (amounts in cents); with `finish`, the channel also releases the rest. */
  split(
    co: PayChannelOrdersTable,
    outOrderNo: string,
    receivers: Array<{ type: string; account: string; amount: number; description: string }>,
    finish: boolean,
  ): Promise<ProtocolAnswer>;
  querySplit(co: PayChannelOrdersTable, outOrderNo: string): Promise<ProtocolAnswer>;
  /** Ends the order's sharing: `amount` (what is still frozen) goes to the merchant. */
  finishSharing(co: PayChannelOrdersTable, outOrderNo: string, amount: number, description: string): Promise<ProtocolAnswer>;
  /** What of the order is still frozen for sharing (`unsplit_amount`, cents). */
  unsplitAmount(co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
}

/**
 * What a bill download gave (5.2): the bill's text (uncompressed, hash checked where the protocol
 * has one), `none` when the channel says there is no statement for the day (an answer: no trades),
 * or `not_ready` while the channel is still making it.
 */
export type BillDownload = { kind: 'bill'; text: string } | { kind: 'none' } | { kind: 'not_ready'; why: string };

/** The channel's daily trade bill, for the channels that publish one. */
export interface BillSource {
  /** The `bill_type=ALL` bill of a China date (`YYYY-MM-DD`) for every merchant the service's account covers. */
  download(date: string): Promise<BillDownload>;
}

/** How the development sandbox plays this channel's platform (docs/sandbox.md). */
export interface SandboxRules {
  /** Where under `/sandbox` the channel's protocol endpoints are. */
  pathPrefix: string;
  key(config: Config): string;
  /** Why the merchant fields of a call are refused, or null. */
  merchantProblem(config: Config, f: Fields): string | null;
  sharesProfits: boolean;
}

/**
 * A notification read and verified: its facts in the channel vocabulary (transaction or refund
 * fields), or why it was refused (it then changes nothing). Here rather than beside the v3 reader
 * (`social-native/v3/notification-facts.ts`) so that these types import nothing that imports them.
 */
export type NotificationFacts = { ok: true; id: string; eventType: string; fields: Fields } | { ok: false; reason: string; message: string };

/**
 * A channel speaking API v3 (docs/payments.md): its calls (every answer verified before it is read),
 * its bills, the payer arguments signed with the merchant's RSA key, and its notifications read.
 */
export interface V3Side {
  calls: OrderCalls & ProfitSharingCalls;
  bills: BillSource;
  miniProgramArgs(appId: string, prepayId: string): V3MiniProgramArgs;
  appArgs(ids: { appid: string; partnerid: string }, prepayId: string): V3AppArgs;
  notification(kind: 'pay' | 'refund', headers: SignedHeaders, rawBody: string): Promise<NotificationFacts>;
}

export interface ChannelModule<R extends string = string> {
  channel: PaymentChannel;
  /** The channel's name in notify URLs (`/pay-notify/<realm>/pay`). */
  realm: R;
  /** What the realm is, for the API reference. */
  description: string;
  tradeTypes: readonly TradeType[];
  /** The gateway setting; without it, the service's own sandbox when it runs one. */
  gatewayUrl(config: Config): string | undefined;
  /** The name of that setting. */
  gatewaySetting: string;
  /**
   * The settings this channel still needs before it can take a payment (empty: ready); the production
   * start warns naming them (`payments/channels/setup.ts`).
   */
  missingSettings(config: Config): string[];
  adapter(config: Config, endpoints: ChannelEndpoints): ChannelAdapter<R>;
  profitSharing?(adapter: ChannelAdapter): ProfitSharingCalls;
  /** The daily trade bill; a channel without one has none (docs/reconciliation.md). */
  bills?(adapter: ChannelAdapter, config: Config): BillSource;
  /**
   * The channel over API v3 when the configuration says so (`PAY_PROTOCOL`); undefined: protocol v2.
   * `baseUrl` is the gateway's (known once the service listens when it is its own sandbox).
   */
  v3?(config: Config, baseUrl: () => string | undefined, notifyUrl: (kind: 'pay' | 'refund') => string, log?: V3CallLog): V3Side | undefined;
  sandbox: SandboxRules;
}
