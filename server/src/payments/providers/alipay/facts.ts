/**
 * Alipay's answers and notifications read into kit facts: states paid / unpaid / closed / refunded,
 * amounts as integer cents parsed from Alipay's yuan strings (never through a float), trade and
 * refund ids; never Alipay's own field names beyond this folder.
 */
import { AmountError, parseDecimal } from '@kit/shared';
import { AlipayError } from './errors';
import { parseAlipayTime } from './time';

export type AlipayTradeState = 'unpaid' | 'paid' | 'closed' | 'refunded';

export interface AlipayTradeFacts {
  outTradeNo: string;
  state: AlipayTradeState;
  /** False when Alipay has no trade yet (a precreated code nobody scanned): ask again, it is not closed. */
  exists: boolean;
  /** Alipay's `trade_no`: the transaction id. */
  tradeNo?: string;
  amountCents?: number;
  /** Unix ms the payer paid. */
  paidAt?: number;
  /** Who paid: `buyer_open_id`, or the older `buyer_user_id`. */
  buyerId?: string;
}

export interface AlipayCloseFacts {
  outTradeNo: string;
  closed: boolean;
  exists: boolean;
}

export interface AlipayRefundFacts {
  outTradeNo: string;
  outRequestNo: string;
  tradeNo?: string;
  /** False for a repeated `out_request_no` (the money moved the first time): not a failure. */
  fundChange: boolean;
  /** Everything refunded on the trade so far (`refund_fee`). */
  refundedTotalCents?: number;
}

export type AlipayRefundQueryFacts =
  | { outTradeNo: string; outRequestNo: string; state: 'refunded'; refundCents: number; refundedAt?: number }
  /**
   * No `refund_status` (`REFUND_SUCCESS` is its one value), whatever else the answer names (the
   * `out_request_no` too): Alipay did not take the refund, it never received it or the refund failed
   * (`AlipayTradeFastpayRefundQueryResponse.refundStatus` in alipay-sdk-java: 未返回该字段表示退款请求未收到或者退款失败),
   * and its documentation says to call `alipay.trade.refund` again with the same `out_request_no`
   * and amount, which is the same refund to Alipay.
   */
  | { outTradeNo: string; outRequestNo: string; state: 'not_taken' };

export type AlipayBillFacts = { ready: true; url: string } | { ready: false };

/** Alipay's yuan strings ("0.01", "12.3") as integer cents. */
export function yuanToCents(text: unknown, what = 'amount'): number {
  try {
    return parseDecimal(text, { scale: 2, max: Number.MAX_SAFE_INTEGER, allowZero: true });
  } catch (e) {
    if (e instanceof AmountError) throw new AlipayError('alipay', 'format', `Alipay's ${what} is not a yuan amount: ${e.message}`);
    throw e;
  }
}

type Node = Record<string, unknown>;
const str = (n: Node, k: string): string | undefined => (typeof n[k] === 'string' && n[k] !== '' ? (n[k] as string) : undefined);
const cents = (n: Node, k: string): number | undefined => (str(n, k) === undefined ? undefined : yuanToCents(n[k], k));
const time = (n: Node, k: string): number | undefined => parseAlipayTime(str(n, k)) ?? undefined;

/**
 * `trade_status` as a kit state. TRADE_CLOSED is a trade closed unpaid, or one fully refunded: a
 * payment time, or a refund, tells the second.
 */
export function tradeState(n: Node, method: string): AlipayTradeState {
  switch (str(n, 'trade_status')) {
    case 'WAIT_BUYER_PAY':
      return 'unpaid';
    case 'TRADE_SUCCESS':
    case 'TRADE_FINISHED':
      return 'paid';
    case 'TRADE_CLOSED':
      return str(n, 'send_pay_date') || str(n, 'gmt_payment') || str(n, 'gmt_refund') || str(n, 'refund_fee') ? 'refunded' : 'closed';
    default:
      throw new AlipayError(method, 'format', `Alipay ${method}: unknown trade_status ${String(n.trade_status)}`);
  }
}

export function queryFacts(outTradeNo: string, n: Node): AlipayTradeFacts {
  const facts: AlipayTradeFacts = { outTradeNo, state: tradeState(n, 'alipay.trade.query'), exists: true };
  const tradeNo = str(n, 'trade_no');
  if (tradeNo) facts.tradeNo = tradeNo;
  const amount = cents(n, 'total_amount');
  if (amount !== undefined) facts.amountCents = amount;
  const paidAt = time(n, 'send_pay_date');
  if (paidAt !== undefined && facts.state !== 'unpaid') facts.paidAt = paidAt;
  const buyer = str(n, 'buyer_open_id') ?? str(n, 'buyer_user_id');
  if (buyer) facts.buyerId = buyer;
  return facts;
}

export const closeFacts = (outTradeNo: string, _n: Node): AlipayCloseFacts => ({ outTradeNo, closed: true, exists: true });

export function refundFacts(outTradeNo: string, outRequestNo: string, n: Node): AlipayRefundFacts {
  const facts: AlipayRefundFacts = { outTradeNo, outRequestNo, fundChange: str(n, 'fund_change') === 'Y' };
  const tradeNo = str(n, 'trade_no');
  if (tradeNo) facts.tradeNo = tradeNo;
  const total = cents(n, 'refund_fee');
  if (total !== undefined) facts.refundedTotalCents = total;
  return facts;
}

export function refundQueryFacts(outTradeNo: string, outRequestNo: string, n: Node): AlipayRefundQueryFacts {
  if (str(n, 'refund_status') !== 'REFUND_SUCCESS') return { outTradeNo, outRequestNo, state: 'not_taken' };
  const refundCents = cents(n, 'refund_amount');
  if (refundCents === undefined) throw new AlipayError('alipay.trade.fastpay.refund.query', 'format', 'refund_amount missing from a successful refund');
  const refundedAt = time(n, 'gmt_refund_pay');
  return { outTradeNo, outRequestNo, state: 'refunded', refundCents, ...(refundedAt !== undefined ? { refundedAt } : {}) };
}

export function billFacts(n: Node): AlipayBillFacts {
  const url = str(n, 'bill_download_url');
  if (!url) throw new AlipayError('alipay.data.dataservice.bill.downloadurl.query', 'format', 'bill_download_url missing');
  return { ready: true, url };
}
