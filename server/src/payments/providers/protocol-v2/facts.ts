/**
 * Protocol fields read into the kit's facts (`../provider.ts`): the order query's trade state, the
 * refund query's indexed refunds, the refusals the domain acts on and those worth retrying. Shared
 * by the providers whose answers are (or are first read into) these fields: `social-v2`,
 * `card-network`, and `social-v3`, whose readers name v3's answers the same way.
 */
import { KitError } from '@kit/shared';
import type { PayChannelOrdersTable } from '../../../db/schema';
import type { CallKind, Outcome, PaymentFacts, PaymentState, Placed, Refusal, RefundFacts } from '../provider';
import { paidFacts, paidFieldsProblem } from './checks';
import type { ProtocolAnswer } from './client';
import { merchantOf } from './merchant';

const STATES: Record<string, PaymentState> = {
  SUCCESS: 'paid',
  REFUND: 'refunded',
  NOTPAY: 'unpaid',
  USERPAYING: 'paying',
  CLOSED: 'closed',
  REVOKED: 'revoked',
  PAYERROR: 'failed',
};

/** What each kind of call's "not found" is called. */
const NOT_FOUND: Record<CallKind, string> = { order: 'ORDERNOTEXIST', refund: 'REFUNDNOTEXIST', profitSharing: 'ORDER_NOT_EXIST' };

/** Codes that mean "the same call again later", by kind of call. */
const RETRYABLE: Record<CallKind, ReadonlySet<string>> = {
  order: new Set(),
  refund: new Set(['SYSTEMERROR', 'BIZERR_NEED_RETRY', 'FREQUENCY_LIMITED']),
  profitSharing: new Set(['SYSTEMERROR', 'FREQUENCY_LIMITED', 'ORDER_NOT_READY']),
};

/**
 * A payment code's refusals (7.4), in both protocols' words: the code cannot be used (the payer
 * refreshes it), or the payer cannot pay with it (a short balance, a card the merchant cannot take:
 * v2's `NOTSUPORTCARD`, spelled so by the platform).
 */
const CODE_UNUSABLE = new Set(['AUTHCODEEXPIRE', 'AUTH_CODE_INVALID', 'AUTH_CODE_ERROR', 'AUTH_CODE_EXPIRE']);
const PAYER_CANNOT_PAY = new Set(['NOTENOUGH', 'NOT_ENOUGH', 'NOTSUPORTCARD', 'BUYER_MISMATCH', 'PAYER_ACCOUNT_ABNORMAL', 'PARTIAL_PAY_NOT_SUPPORTED']);
/**
 * The request itself refused, in both protocols' words (v2's `err_code`, v3's error `code`): its parameters,
 * its signature, the merchant's ids or rights. Not the payer's doing: no code or other wallet helps.
 */
const REQUEST_REFUSED = new Set([
  'PARAM_ERROR',
  'INVALID_REQUEST',
  'LACK_PARAMS',
  'XML_FORMAT_ERROR',
  'NOT_UTF8',
  'SIGN_ERROR',
  'SIGNERROR',
  'NO_AUTH',
  'NOAUTH',
  'MCH_NOT_EXISTS',
  'MCHID_NOT_EXIST',
  'APPID_NOT_EXIST',
  'APPID_MCHID_NOT_MATCH',
]);
/** The order cannot be paid any more: closed, or (a payment code's, v2) reversed. */
const NOT_PAYABLE = new Set(['ORDERCLOSED', 'ORDERREVERSED']);

export function refusalOf(call: CallKind, a: ProtocolAnswer): Refusal {
  const code = a.errCode ?? '';
  const meaning =
    code === NOT_FOUND[call]
      ? 'not_found'
      : NOT_PAYABLE.has(code)
        ? 'closed'
        : code === 'ORDERPAID'
          ? 'paid'
          : CODE_UNUSABLE.has(code)
            ? 'code_unusable'
            : PAYER_CANNOT_PAY.has(code)
              ? 'payer_cannot_pay'
              : REQUEST_REFUSED.has(code)
                ? 'request_refused'
                : 'other';
  return { call, meaning, code, message: a.errMsg ?? '' };
}

export const isRetryable = (r: Refusal): boolean => RETRYABLE[r.call].has(r.code);

/** An answer's refusal, or its facts read by `read`. */
export function outcome<T extends object>(call: CallKind, a: ProtocolAnswer, read: (fields: ProtocolAnswer['fields']) => T): Outcome<T> {
  return a.ok ? { ok: true, ...read(a.fields) } : { ok: false, refusal: refusalOf(call, a) };
}

/** An order query's answer about `co`. */
/** `now`: when the kit learns of it (the payment time when the answer gives only its second). */
export function paymentFacts(co: PayChannelOrdersTable, f: ProtocolAnswer['fields'], now: number): PaymentFacts {
  const paid = paidFacts(f, now);
  const cents = /^[0-9]+$/.test(f.total_fee ?? '') ? Number(f.total_fee) : null;
  return {
    state: STATES[f.trade_state ?? ''] ?? 'unpaid',
    stateText: f.trade_state ?? 'nothing',
    transactionId: f.transaction_id || null,
    amountCents: cents,
    paidAt: paid.paidAt,
    mismatch: paidFieldsProblem(f, { sign_type: co.sign_type, total_cents: co.total_cents, merchant: merchantOf(co) }),
  };
}

/** A refund query's answer about the refund numbered `refundNo` (the answer lists refunds by index). */
export function refundFacts(refundNo: string, f: ProtocolAnswer['fields']): RefundFacts {
  const i = Object.keys(f)
    .find((k) => k.startsWith('out_refund_no_') && f[k] === refundNo)
    ?.slice('out_refund_no_'.length);
  if (i === undefined) return { listed: false, state: 'processing', refundId: null, amountCents: null, stateText: '' };
  const status = f[`refund_status_${i}`] ?? '';
  const fee = f[`refund_fee_${i}`];
  return {
    listed: true,
    state: status === 'SUCCESS' ? 'succeeded' : status === 'REFUNDCLOSE' || status === 'CHANGE' ? 'failed' : 'processing',
    refundId: f[`refund_id_${i}`] ?? null,
    amountCents: fee !== undefined && /^[0-9]+$/.test(fee) ? Number(fee) : null,
    stateText: status,
  };
}

/**
 * A placed order's answer as 4.3's `args` (the fields v2 answers; v3 fills in what is true of its
 * answer) and the ids the payer needs. A scan-code order needs its `code_url`; the others, and every
 * order of a protocol that always gives one, a prepay id.
 */
export function placedOf(tradeType: string, a: ProtocolAnswer['fields'], prepayIdAlways: boolean): Placed {
  if ((tradeType === 'NATIVE' ? !a.code_url : !a.prepay_id) || (!a.prepay_id && prepayIdAlways))
    throw new KitError('channel_error', 'the channel answer lacks prepay_id or code_url');
  return {
    channelPrepayId: a.prepay_id || null,
    codeUrl: a.code_url ?? null,
    scanArgs: {
      return_code: a.return_code,
      return_msg: a.return_msg ?? 'OK',
      appid: a.appid,
      mch_id: a.mch_id,
      nonce_str: a.nonce_str,
      sign: a.sign ?? '',
      result_code: a.result_code,
      prepay_id: a.prepay_id ?? '',
      trade_type: a.trade_type,
      code_url: a.code_url ?? '',
    },
  };
}
