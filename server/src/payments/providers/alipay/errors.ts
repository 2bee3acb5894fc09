/**
 * A failed Alipay call: the platform's `code`/`msg`/`sub_code`/`sub_msg` when it answered, and
 * whether asking again may succeed (network and HTTP failures, system errors), which the follow-up
 * loops use; an answer that fails its signature is never used, not even as an error's details. A
 * refusal that came unsigned (`unsigned`: the gateway's own `error_response`, or an error node
 * without `sign`, which Alipay's SDKs read for its codes) is read for its codes only: it says whether
 * to ask again and what to tell people, never what happened to an order or a refund.
 */
export type AlipayFailure =
  /** No answer: connection refused, reset, time limit. */
  | 'network'
  /** An HTTP status other than 200. */
  | 'http'
  /** An answer that is not the JSON of the method. */
  | 'format'
  /** An answer whose signature fails, or is signed by a certificate that is not the configured one. */
  | 'signature'
  /** A business error (`code` other than 10000): verified, or unsigned and naming its `sub_code` (`unsigned`). */
  | 'refused';

/** Sub-codes that say Alipay failed for now: the same call, repeated, may succeed. */
const RETRYABLE_SUB_CODES = new Set(['ACQ.SYSTEM_ERROR', 'aop.ACQ.SYSTEM_ERROR', 'isp.unknow-error', 'aop.unknow-error', 'isp.unknown-error']);
/** `20000`: service currently unavailable. */
const RETRYABLE_CODES = new Set(['20000']);

/** Whether Alipay's `sub_code` (or `code`, when it gave no `sub_code`) asks for the same call again later. */
export const retryableAlipayCode = (code: string): boolean => RETRYABLE_SUB_CODES.has(code) || RETRYABLE_CODES.has(code);

export interface AlipayErrorDetails {
  code?: string;
  msg?: string;
  subCode?: string;
  subMsg?: string;
  httpStatus?: number;
  /** The refusal came without a signature: its codes are read, nothing else (see the class). */
  unsigned?: boolean;
}

export class AlipayError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly method: string,
    readonly failure: AlipayFailure,
    message: string,
    readonly details: AlipayErrorDetails = {},
  ) {
    super(message);
    this.name = 'AlipayError';
    this.retryable =
      failure === 'network' ||
      failure === 'http' ||
      failure === 'format' ||
      (failure === 'refused' && (retryableAlipayCode(details.subCode ?? '') || retryableAlipayCode(details.code ?? '')));
  }

  get subCode(): string | undefined {
    return this.details.subCode;
  }

  get subMsg(): string | undefined {
    return this.details.subMsg;
  }

  /** A refusal that came unsigned: read for its codes only. */
  get unsigned(): boolean {
    return this.details.unsigned === true;
  }

  /**
   * Built from a business error, verified or (`unsigned`) unsigned and naming its `sub_code`:
   * `sub_code`/`sub_msg` in the message, as the endpoints' `msg` shows them.
   */
  static refused(method: string, node: Record<string, unknown>, how: { unsigned?: boolean } = {}): AlipayError {
    const s = (k: string): string | undefined => (typeof node[k] === 'string' ? (node[k] as string) : undefined);
    const details: AlipayErrorDetails = { code: s('code'), msg: s('msg'), subCode: s('sub_code'), subMsg: s('sub_msg') };
    if (how.unsigned) details.unsigned = true;
    const what = details.subCode ? `${details.subCode}: ${details.subMsg ?? ''}` : `${details.code ?? '?'} ${details.msg ?? ''}`;
    return new AlipayError(method, 'refused', `Alipay ${method} refused${how.unsigned ? ' (unsigned)' : ''}: ${what.trim()}`, details);
  }
}
