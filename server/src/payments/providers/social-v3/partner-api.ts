/**
 * The service-provider (partner) endpoints of API v3 as requests and readers: what to send for an
 * order, query, close, refund, refund query and the profit-sharing calls, and what their verified
 * answers and notification resources say, read into the channel vocabulary the payment services
 * already speak (`ProtocolAnswer`: `ok`, `errCode`, and fields named as in protocol v2:
 * `trade_state`, `total_fee`, `time_end`, `refund_status_0`…), so that the rules in channel-orders,
 * refund-follower, payment-follower and ps-channel hold for both protocols unchanged.
 */
import { z } from 'zod';
import type { ProtocolAnswer } from '../protocol-v2/client';
import { formatChinaTime } from '../china-time';
import type { Fields } from '../protocol-v2/xml';
import type { MerchantFields, TradeType } from '../protocol-v2/types';
import type { V3Answer, V3Request } from './client';

const enc = encodeURIComponent;
const query = (q: Record<string, string | undefined>) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${enc(v!)}`)
    .join('&');

/** RFC 3339 in China Standard Time, as the platform writes times. */
export function rfc3339Cst(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000 + 8 * 3_600_000).toISOString().replace(/\.000Z$/, '+08:00');
}

export interface PlaceOrder {
  out_trade_no: string;
  description: string;
  attach: string;
  total_cents: number;
  expire_at: number;
  notify_url: string;
  profit_sharing: boolean;
}

export function placeRequest(tradeType: TradeType, m: MerchantFields, o: PlaceOrder): V3Request {
  const body: Record<string, unknown> = {
    sp_appid: m.appid,
    sp_mchid: m.mch_id,
    ...(m.sub_appid ? { sub_appid: m.sub_appid } : {}),
    sub_mchid: m.sub_mch_id,
    description: o.description,
    out_trade_no: o.out_trade_no,
    time_expire: rfc3339Cst(o.expire_at),
    attach: o.attach,
    notify_url: o.notify_url,
    amount: { total: o.total_cents, currency: 'CNY' },
  };
  if (tradeType === 'JSAPI') body.payer = m.sub_openid ? { sub_openid: m.sub_openid } : { sp_openid: m.openid };
  if (o.profit_sharing) body.settle_info = { profit_sharing: true };
  // Placing the same out_trade_no with the same fields again gives the same order.
  return { method: 'POST', path: `/v3/pay/partner/transactions/${tradeType.toLowerCase()}`, body, repeatable: true };
}

export const queryRequest = (m: MerchantFields, outTradeNo: string): V3Request => ({
  method: 'GET',
  path: `/v3/pay/partner/transactions/out-trade-no/${enc(outTradeNo)}?${query({ sp_mchid: m.mch_id, sub_mchid: m.sub_mch_id })}`,
  repeatable: true,
});

export const closeRequest = (m: MerchantFields, outTradeNo: string): V3Request => ({
  method: 'POST',
  path: `/v3/pay/partner/transactions/out-trade-no/${enc(outTradeNo)}/close`,
  body: { sp_mchid: m.mch_id, sub_mchid: m.sub_mch_id },
  repeatable: true,
});

/**
 * The payer's payment code (付款码支付, partner mode, 7.4): `payer.auth_code`, and `scene_info` with
 * its `store_info`, both required (wechatpay-php's `Pay/Partner/Transactions/Codepay`): the counter's
 * device and the shop, by the merchant's own code (`out_id`). Placed again with the same
 * `out_trade_no` and code, the platform answers the same trade.
 */
export function codePayRequest(
  m: MerchantFields,
  o: { out_trade_no: string; description: string; attach: string; total_cents: number; auth_code: string; device_id?: string; store_id?: string },
): V3Request {
  return {
    method: 'POST',
    path: '/v3/pay/partner/transactions/codepay',
    body: {
      sp_appid: m.appid,
      sp_mchid: m.mch_id,
      ...(m.sub_appid ? { sub_appid: m.sub_appid } : {}),
      sub_mchid: m.sub_mch_id,
      description: o.description,
      out_trade_no: o.out_trade_no,
      attach: o.attach,
      payer: { auth_code: o.auth_code },
      amount: { total: o.total_cents, currency: 'CNY' },
      scene_info: { ...(o.device_id ? { device_id: o.device_id } : {}), store_info: o.store_id ? { out_id: o.store_id } : {} },
    },
    // Never sent twice on its own (not to the backup domain either): a code without an answer is cancelled instead.
    repeatable: false,
  };
}

/** Undoes a code payment (撤销订单): whatever the trade's state, money taken goes back. */
export const reverseRequest = (m: MerchantFields, outTradeNo: string): V3Request => ({
  method: 'POST',
  path: `/v3/pay/partner/transactions/out-trade-no/${enc(outTradeNo)}/reverse`,
  body: { sp_appid: m.appid, sp_mchid: m.mch_id, sub_mchid: m.sub_mch_id },
  repeatable: true,
});

export function refundRequest(
  m: MerchantFields,
  r: { out_trade_no: string; transaction_id?: string | null; out_refund_no: string; refund_cents: number; total_cents: number; notify_url: string },
): V3Request {
  return {
    method: 'POST',
    path: '/v3/refund/domestic/refunds',
    body: {
      sub_mchid: m.sub_mch_id,
      ...(r.transaction_id ? { transaction_id: r.transaction_id } : { out_trade_no: r.out_trade_no }),
      out_refund_no: r.out_refund_no,
      notify_url: r.notify_url,
      amount: { refund: r.refund_cents, total: r.total_cents, currency: 'CNY' },
    },
    // The same out_refund_no is the same refund at the platform.
    repeatable: true,
  };
}

export const refundQueryRequest = (m: MerchantFields, outRefundNo: string): V3Request => ({
  method: 'GET',
  path: `/v3/refund/domestic/refunds/${enc(outRefundNo)}?${query({ sub_mchid: m.sub_mch_id })}`,
  repeatable: true,
});

// ---- reading answers ----------------------------------------------------------------------------

/**
 * v3 error codes as the services know them from protocol v2. A 404 is what "not found" is on v3,
 * whatever the code says.
 */
const ERROR_CODES: Record<string, string> = {
  ORDER_NOT_EXIST: 'ORDERNOTEXIST',
  ORDER_CLOSED: 'ORDERCLOSED',
  ORDERPAID: 'ORDERPAID',
  SYSTEM_ERROR: 'SYSTEMERROR',
  FREQUENCY_LIMITED: 'FREQUENCY_LIMITED',
};

const errorBody = z.object({ code: z.string(), message: z.string().optional() }).passthrough();

/** A failure answer (4xx, or 5xx after any backup) in the services' vocabulary; `notFound` names what a 404 means. */
export function failure(a: V3Answer, notFound: string): ProtocolAnswer {
  const e = errorBody.safeParse(a.body);
  const code = e.success ? e.data.code : `HTTP_${a.status}`;
  const errCode = a.status === 404 ? notFound : (ERROR_CODES[code] ?? code);
  const message = e.success ? (e.data.message ?? '') : '';
  return { fields: {}, ok: false, errCode, errMsg: `${message}${a.requestId ? ` (Request-ID ${a.requestId})` : ''}`.trim() };
}

export class V3AnswerError extends Error {}

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const r = schema.safeParse(body);
  if (!r.success) throw new V3AnswerError(`the platform's ${what} is not the documented JSON`);
  return r.data;
}

const placed = z.object({ prepay_id: z.string().min(1).optional(), code_url: z.string().min(1).optional() }).passthrough();

/** The place answer: `prepay_id` (JSAPI, APP) or `code_url` (NATIVE). */
export function readPlaced(tradeType: TradeType, a: V3Answer): ProtocolAnswer {
  if (a.status !== 200) return failure(a, 'ORDERNOTEXIST');
  const p = parse(placed, a.body, 'order answer');
  if (tradeType === 'NATIVE' ? !p.code_url : !p.prepay_id)
    throw new V3AnswerError(`the platform's order answer lacks ${tradeType === 'NATIVE' ? 'code_url' : 'prepay_id'}`);
  return {
    fields: {
      return_code: 'SUCCESS',
      result_code: 'SUCCESS',
      trade_type: tradeType,
      ...(p.prepay_id ? { prepay_id: p.prepay_id } : {}),
      ...(p.code_url ? { code_url: p.code_url } : {}),
    },
    ok: true,
  };
}

const transaction = z
  .object({
    sp_appid: z.string(),
    sp_mchid: z.string(),
    sub_appid: z.string().optional(),
    sub_mchid: z.string(),
    out_trade_no: z.string(),
    transaction_id: z.string().optional(),
    trade_type: z.string().optional(),
    trade_state: z.string(),
    success_time: z.string().optional(),
    attach: z.string().optional(),
    amount: z.object({ total: z.number().int().nonnegative().optional(), currency: z.string().optional() }).passthrough().optional(),
  })
  .passthrough();

/** An order as the query answer or a payment notification's resource tells it. */
export function transactionFields(body: unknown): Fields {
  const t = parse(transaction, body, 'transaction');
  const paidAt = t.success_time ? Date.parse(t.success_time) : NaN;
  const f: Fields = {
    appid: t.sp_appid,
    mch_id: t.sp_mchid,
    sub_mch_id: t.sub_mchid,
    out_trade_no: t.out_trade_no,
    trade_state: t.trade_state,
    result_code: t.trade_state === 'SUCCESS' ? 'SUCCESS' : 'FAIL',
    // Another currency is never this order's amount.
    total_fee: t.amount?.total !== undefined && (t.amount.currency ?? 'CNY') === 'CNY' ? String(t.amount.total) : '',
  };
  if (t.sub_appid) f.sub_appid = t.sub_appid;
  if (t.transaction_id) f.transaction_id = t.transaction_id;
  if (t.trade_type) f.trade_type = t.trade_type;
  if (t.attach) f.attach = t.attach;
  if (Number.isFinite(paidAt)) f.time_end = formatChinaTime(paidAt);
  return f;
}

export function readQueried(a: V3Answer): ProtocolAnswer {
  if (a.status !== 200) return failure(a, 'ORDERNOTEXIST');
  return { fields: { return_code: 'SUCCESS', ...transactionFields(a.body) }, ok: true };
}

/**
 * The code payment's answer: the trade when the platform took the money (200, `trade_state`
 * SUCCESS); `USERPAYING` (202, a 200 with that state, or that code) while the payer confirms with a password, as the
 * platform's guide and wechatpay-php's `Codepay` read it; any other code a failure. A failure
 * the platform asks to be followed by a query (`SYSTEM_ERROR`, `BANK_ERROR`, a 5xx) keeps its
 * code: the provider reads it as "no outcome".
 */
export function readCodePaid(a: V3Answer): ProtocolAnswer {
  const e = errorBody.safeParse(a.body);
  // The platform's page also shows a 200 whose body is only `{"trade_state": "USERPAYING"}`: the same state.
  const state = a.body && typeof a.body === 'object' ? (a.body as { trade_state?: unknown }).trade_state : undefined;
  if (a.status === 202 || (a.status === 200 && state === 'USERPAYING') || (e.success && e.data.code === 'USERPAYING'))
    return { fields: { return_code: 'SUCCESS', trade_state: 'USERPAYING' }, ok: true };
  if (a.status !== 200) return failure(a, 'ORDERNOTEXIST');
  return { fields: { return_code: 'SUCCESS', ...transactionFields(a.body) }, ok: true };
}

/** The reverse's answer: done (200 or 204), unless it says `recall: true` (call it again). */
export function readReversed(a: V3Answer): ProtocolAnswer {
  if (a.status !== 200 && a.status !== 204) return failure(a, 'ORDERNOTEXIST');
  const recall = a.body && typeof a.body === 'object' ? (a.body as { recall?: unknown }).recall : undefined;
  return { fields: { return_code: 'SUCCESS', result_code: 'SUCCESS', recall: recall === true || recall === 'Y' ? 'Y' : 'N' }, ok: true };
}

export function readClosed(a: V3Answer): ProtocolAnswer {
  if (a.status === 204 || a.status === 200) return { fields: { return_code: 'SUCCESS', result_code: 'SUCCESS' }, ok: true };
  return failure(a, 'ORDERNOTEXIST');
}

const refund = z
  .object({
    refund_id: z.string().optional(),
    out_refund_no: z.string(),
    out_trade_no: z.string().optional(),
    transaction_id: z.string().optional(),
    status: z.string().optional(),
    refund_status: z.string().optional(),
    amount: z.object({ refund: z.number().int().nonnegative(), total: z.number().int().nonnegative(), currency: z.string().optional() }).passthrough(),
  })
  .passthrough();

/** v3 refund states in v2 words: SUCCESS, CLOSED → REFUNDCLOSE, PROCESSING, ABNORMAL → CHANGE. */
const REFUND_STATUS: Record<string, string> = { SUCCESS: 'SUCCESS', CLOSED: 'REFUNDCLOSE', PROCESSING: 'PROCESSING', ABNORMAL: 'CHANGE' };

/** A refund as the refund and refund-query answers (`status`) and refund notifications (`refund_status`) tell it. */
export function refundFields(body: unknown): Fields {
  const r = parse(refund, body, 'refund');
  const status = r.status ?? r.refund_status ?? 'PROCESSING';
  const cny = (r.amount.currency ?? 'CNY') === 'CNY';
  const f: Fields = {
    out_refund_no: r.out_refund_no,
    refund_status: REFUND_STATUS[status] ?? status,
    refund_fee: cny ? String(r.amount.refund) : '',
    total_fee: cny ? String(r.amount.total) : '',
  };
  if (r.refund_id) f.refund_id = r.refund_id;
  if (r.out_trade_no) f.out_trade_no = r.out_trade_no;
  if (r.transaction_id) f.transaction_id = r.transaction_id;
  return f;
}

export function readRefund(a: V3Answer): ProtocolAnswer {
  if (a.status !== 200) return failure(a, 'REFUNDNOTEXIST');
  return { fields: { return_code: 'SUCCESS', result_code: 'SUCCESS', ...refundFields(a.body) }, ok: true };
}

/** The refund query in the indexed shape of protocol v2 (`out_refund_no_0`, `refund_status_0`…): one refund per number. */
export function readRefundQuery(a: V3Answer): ProtocolAnswer {
  if (a.status !== 200) return failure(a, 'REFUNDNOTEXIST');
  const f = refundFields(a.body);
  const fields: Fields = {
    return_code: 'SUCCESS',
    result_code: 'SUCCESS',
    refund_count: '1',
    out_refund_no_0: f.out_refund_no,
    refund_status_0: f.refund_status,
    refund_fee_0: f.refund_fee,
  };
  if (f.refund_id) fields.refund_id_0 = f.refund_id;
  if (f.out_trade_no) fields.out_trade_no = f.out_trade_no;
  if (f.total_fee) fields.total_fee = f.total_fee;
  return { fields, ok: true };
}
