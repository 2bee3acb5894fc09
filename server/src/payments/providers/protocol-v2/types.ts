/**
 * The protocol-v2 family's own vocabulary (2.4), shared by the providers that speak it or grew out
 * of it (`social-v2`, `card-network`, and `social-v3`, which names merchants the same way): the
 * merchant's fields, the adapter that names them per platform, and the calls answered in protocol
 * fields. None of it leaves `providers/`: the domain sees `provider.ts` only.
 */
import type { ChannelParams, PaymentChannel } from '@kit/shared';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../../db/schema';
import type { OrderForChannel, PaymentCode } from '../provider';
import type { ProtocolAnswer, ProtocolEndpoint } from './client';
import type { Fields } from './xml';

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

/** How a platform names the merchant in its protocol fields. */
export interface ChannelAdapter {
  channel: PaymentChannel;
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

/** The channel's calls about orders and refunds, in one protocol; answers in the services' vocabulary. */
export interface OrderCalls {
  unifiedOrder(co: PayChannelOrdersTable, order: OrderForChannel): Promise<ProtocolAnswer>;
  orderQuery(co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
  closeOrder(co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
  refund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
  refundQuery(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
}

/**
 * The payer's payment code (7.4), in one protocol: charging it (v2 `micropay`, v3 `codepay`) and
 * undoing it (v2 `secapi/pay/reverse`, v3 `…/reverse`). Answers in the services' vocabulary:
 * `result_code` SUCCESS with the transaction's fields when paid, `USERPAYING` (v2's `err_code`, or
 * v3's answer read into `trade_state`) while the payer confirms, `recall: Y` when the platform asks
 * for the reverse again (`code-payment.ts` reads them).
 */
export interface CodeCalls {
  codePay(co: PayChannelOrdersTable, order: OrderForChannel, code: PaymentCode): Promise<ProtocolAnswer>;
  reverse(co: PayChannelOrdersTable): Promise<ProtocolAnswer>;
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
 * has one), `none` when the platform says there is no statement for the day (an answer: no trades),
 * or `not_ready` while it is still making it.
 */
export type BillText = { kind: 'bill'; text: string } | { kind: 'none' } | { kind: 'not_ready'; why: string };

/**
 * A notification read and verified: its facts in the protocol's field names (transaction or refund
 * fields), or why it was refused (it then changes nothing).
 */
export type NotificationFacts = { ok: true; id: string; eventType: string; fields: Fields } | { ok: false; reason: string; message: string };
