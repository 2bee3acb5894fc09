/**
 * Checks of what a channel says about an order against the channel order it names: a payment
 * notification or an order-query answer is taken only when it names the same merchant and carries
 * the order's exact amount (and, for a notification, is signed with the channel key and the sign
 * type the order was placed with; query answers are checked by the protocol client).
 */
import type { PaidFacts } from '../provider';
import { verifyFields, type SignType } from './sign';
import type { Fields } from './xml';
import type { MerchantFields } from './types';
import { parseChinaTime } from '../china-time';

export interface ChannelOrderFacts {
  sign_type: string;
  total_cents: number;
  merchant: MerchantFields;
}

/** Why a payment notification is refused, or null when it is genuine and matches the order. */
export function payNotificationProblem(n: Fields, order: ChannelOrderFacts, key: string): string | null {
  if (!verifyFields(n, key, order.sign_type as SignType)) return 'bad signature';
  return paidFieldsProblem(n, order);
}

/** Why fields reporting a payment (notification or order query) do not match the order, or null. */
export function paidFieldsProblem(n: Fields, order: ChannelOrderFacts): string | null {
  if (n.appid !== order.merchant.appid || n.mch_id !== order.merchant.mch_id) return 'appid or mch_id differs from the order';
  if (order.merchant.sub_mch_id !== undefined && n.sub_mch_id !== order.merchant.sub_mch_id) return 'sub_mch_id differs from the order';
  if (!/^[0-9]+$/.test(n.total_fee ?? '') || Number(n.total_fee) !== order.total_cents)
    return `total_fee ${n.total_fee} differs from the order's ${order.total_cents}`;
  if ((n.result_code === 'SUCCESS' || n.trade_state === 'SUCCESS') && !n.transaction_id) return 'transaction_id missing';
  return null;
}

/**
 * The payment facts of verified fields. The channel's `time_end` has whole seconds, 4.2 answers in
 * milliseconds: the payer paid within that second and no later than now, so the payment time is
 * the earlier of now and the end of that second (now, when we learn of it at once).
 */
export function paidFacts(n: Fields, now: number): PaidFacts {
  const second = parseChinaTime(n.time_end);
  return { transactionId: n.transaction_id, paidAt: second === null ? now : Math.min(now, second + 999) };
}

/** Why a (decrypted) refund notification does not match our refund, or null. */
export function refundNotificationProblem(info: Fields, refund: { out_trade_no: string; refund_cents: number }, totalCents: number): string | null {
  if (info.out_trade_no !== refund.out_trade_no) return 'out_trade_no differs from the refund';
  if (!/^[0-9]+$/.test(info.refund_fee ?? '') || Number(info.refund_fee) !== refund.refund_cents) return 'refund_fee differs from the refund';
  if (!/^[0-9]+$/.test(info.total_fee ?? '') || Number(info.total_fee) !== totalCents) return 'total_fee differs from the order';
  return null;
}
