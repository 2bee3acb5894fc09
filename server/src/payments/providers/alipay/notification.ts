/**
 * Alipay's asynchronous notifications (`POST <notify_url>`, form-encoded, RSA2; answered with the
 * body `success`): verified with Alipay's key (the configured public key, or the public
 * certificate's), checked to be for this application, and read into kit facts. A notification that
 * fails any of this is refused and nothing of it is used.
 */
import type { AlipayCredentials } from './settings';
import { AlipayError } from './errors';
import { tradeState, yuanToCents, type AlipayTradeState } from './facts';
import { verifyNotification, type Params } from './sign';
import { parseAlipayTime } from './time';

/** What the notification endpoint answers Alipay once the notification is taken (anything else: Alipay repeats it). */
export const ALIPAY_NOTIFY_ACK = 'success';

export interface AlipayNotificationFacts {
  notifyId: string;
  /** The merchant's application (`auth_app_id`) the trade is for. */
  merchantAppId?: string;
  outTradeNo: string;
  tradeNo: string;
  state: AlipayTradeState;
  amountCents: number;
  /** After a refund: all refunded so far (`refund_fee`) and the request it answers (`out_biz_no`). */
  refundedCents?: number;
  outRequestNo?: string;
  paidAt?: number;
  buyerId?: string;
}

export class AlipayNotificationError extends Error {}

/** The form of a notification body (`application/x-www-form-urlencoded`, UTF-8). */
export function parseNotificationBody(body: string): Params {
  const out: Params = {};
  for (const [k, v] of new URLSearchParams(body)) {
    if (k in out) throw new AlipayNotificationError(`field ${k} is repeated`);
    out[k] = v;
  }
  return out;
}

/** The facts of a verified notification; throws AlipayNotificationError saying why it is refused. */
export function readNotification(credentials: AlipayCredentials, form: Params): AlipayNotificationFacts {
  if (!form.sign) throw new AlipayNotificationError('unsigned notification');
  if (!verifyNotification(form, credentials.trust.alipayPublicKey)) throw new AlipayNotificationError('the signature does not verify');
  if (form.app_id !== credentials.appId) throw new AlipayNotificationError(`for application ${form.app_id ?? '(none)'}, not ALIPAY_APP_ID`);
  const need = (k: string): string => {
    const v = form[k];
    if (!v) throw new AlipayNotificationError(`${k} missing`);
    return v;
  };
  let state: AlipayTradeState;
  let amountCents: number;
  let refundedCents: number | undefined;
  try {
    state = tradeState(form, 'notification');
    amountCents = yuanToCents(need('total_amount'), 'total_amount');
    refundedCents = form.refund_fee ? yuanToCents(form.refund_fee, 'refund_fee') : undefined;
  } catch (e) {
    if (e instanceof AlipayError) throw new AlipayNotificationError(e.message);
    throw e;
  }
  const facts: AlipayNotificationFacts = { notifyId: need('notify_id'), outTradeNo: need('out_trade_no'), tradeNo: need('trade_no'), state, amountCents };
  if (form.auth_app_id) facts.merchantAppId = form.auth_app_id;
  if (refundedCents !== undefined) facts.refundedCents = refundedCents;
  if (form.out_biz_no) facts.outRequestNo = form.out_biz_no;
  const paidAt = parseAlipayTime(form.gmt_payment);
  if (paidAt !== null) facts.paidAt = paidAt;
  const buyer = form.buyer_open_id || form.buyer_id;
  if (buyer) facts.buyerId = buyer;
  return facts;
}
