/**
 * A failed Alipay call: the platform's `code`/`msg`/`sub_code`/`sub_msg` when it answered, and
 * whether asking again may succeed (network and HTTP failures, system errors), which the follow-up
 * loops use; an answer that fails its signature is never used, not even as an error's details.
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
  /** A verified answer with a business error (`code` other than 10000). */
  | 'refused';

/** Sub-codes that say Alipay failed for now: the same call, repeated, may succeed. */
const RETRYABLE_SUB_CODES = new Set(['ACQ.SYSTEM_ERROR', 'aop.ACQ.SYSTEM_ERROR', 'isp.unknow-error', 'aop.unknow-error', 'isp.unknown-error']);
/** `20000`: service currently unavailable. */
const RETRYABLE_CODES = new Set(['20000']);

export interface AlipayErrorDetails {
  code?: string;
  msg?: string;
  subCode?: string;
  subMsg?: string;
  httpStatus?: number;
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
      (failure === 'refused' && (RETRYABLE_SUB_CODES.has(details.subCode ?? '') || RETRYABLE_CODES.has(details.code ?? '')));
  }

  get subCode(): string | undefined {
    return this.details.subCode;
  }

  get subMsg(): string | undefined {
    return this.details.subMsg;
  }

  /** Built from a verified business error: `sub_code`/`sub_msg` in the message, as the endpoints' `msg` shows them. */
  static refused(method: string, node: Record<string, unknown>): AlipayError {
    const s = (k: string): string | undefined => (typeof node[k] === 'string' ? (node[k] as string) : undefined);
    const details = { code: s('code'), msg: s('msg'), subCode: s('sub_code'), subMsg: s('sub_msg') };
    const what = details.subCode ? `${details.subCode}: ${details.subMsg ?? ''}` : `${details.code ?? '?'} ${details.msg ?? ''}`;
    return new AlipayError(method, 'refused', `Alipay ${method} refused: ${what.trim()}`, details);
  }
}
