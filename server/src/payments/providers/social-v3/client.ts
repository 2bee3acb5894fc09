/**
 * The kit's API v3 client: signs each request with the merchant key and names in `Wechatpay-Serial`
 * the platform key it verifies with; verifies each 2xx answer with the platform keys before anything
 * reads it, and reads an error answer (non-2xx) unverified for its code alone, as the official SDKs
 * do; logs each call with the platform's `Request-ID`; and tries the backup domain when the main one
 * cannot be reached, does not answer in time or answers 5xx, for calls the caller says are safe to
 * repeat.
 */
import type { Clock } from '@kit/shared/clock';
import { KitError } from '@kit/shared';
import { authorization, unixSeconds, type MerchantSigner } from './sign';
import { signedHeaders, type SignedHeaders, type VerifyResult } from './verify';

export interface V3CallLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Who verifies answers: a public key, or certificates that may need fetching first (platform-key-source.ts). */
export interface AnswerVerifier {
  verify(h: SignedHeaders, body: string): Promise<VerifyResult>;
  /**
   * The id every request names in `Wechatpay-Serial`: the platform key the kit verifies with, which
   * is how a merchant in the middle of the switch to the public key asks for answers signed with it
   * (wechatpay-go `core/client.go` sets it on every request from `validator.GetAcceptSerial`,
   * wechatpay-java `AbstractHttpClient` from `validator.getSerialNumber()`).
   */
  acceptSerial?(): Promise<string | undefined>;
}

export interface V3ClientOptions {
  baseUrl: string;
  backupUrl?: string;
  signer: MerchantSigner;
  timeoutMs: number;
  /** The service's clock: the `Authorization` header's time and the calls' time limits. */
  clock: Clock;
  log?: V3CallLog;
  /** Named in log lines. */
  channel?: string;
}

export interface V3Request {
  method: 'GET' | 'POST';
  /** `/v3/…` with its query string, exactly as sent. */
  path: string;
  body?: object;
  /** Safe to send again (to the backup domain) when the first try got no answer in time or got a 5xx. */
  repeatable: boolean;
  /** `Wechatpay-Serial`: the id of the platform key personal data in the body is encrypted to; otherwise the verifier's `acceptSerial`. */
  platformSerial?: string;
  /**
   * Error codes that are the platform's documented answer here, not a failure (a day without a
   * bill: `NO_STATEMENT_EXIST`): such an answer is logged as an answer (info, with its code), not
   * as an error.
   */
  answers?: ReadonlySet<string>;
}

export interface V3Answer {
  status: number;
  /** The parsed JSON body; null for an empty one (204). */
  body: Record<string, unknown> | null;
  text: string;
  headers: SignedHeaders;
  requestId?: string;
  /** The platform's `Retry-After` in seconds, when it gave a usable one. */
  retryAfterSeconds?: number;
}

/** `Retry-After` of the kit's 503 when the platform asks to send a call again later and says not when. */
export const PLATFORM_RETRY_AFTER_SECONDS = 5;

/** Codes the platform documents as "send the same request again later" (on any status). */
const RETRYABLE_CODES = new Set(['SYSTEM_ERROR', 'FREQUENCY_LIMITED']);

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET']);

/** A failure before any answer, where the request certainly or possibly never reached the platform. */
function unreachable(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string } }).cause;
  return cause?.code !== undefined && CONNECTION_ERRORS.has(cause.code);
}

/** No answer within the time limit (`AbortSignal.timeout`): a platform that accepted the connection and never answered. */
const timedOut = (e: unknown): boolean => (e as Error)?.name === 'TimeoutError';

const errorBody = (body: Record<string, unknown> | null): { code: string; message: string } => ({
  code: typeof body?.code === 'string' ? body.code : '',
  message: typeof body?.message === 'string' ? body.message : '',
});

export class V3Client {
  constructor(
    private readonly options: V3ClientOptions,
    private readonly verifier: AnswerVerifier,
  ) {}

  /**
   * A 2xx answer whose signature verified, or an error answer (4xx) to read for its code;
   * `channel_unavailable` without an answer or with one that asks to send the call again later,
   * `channel_error` for a 2xx that does not verify.
   */
  async call(req: V3Request): Promise<V3Answer> {
    const platformSerial = req.platformSerial ?? (await this.verifier.acceptSerial?.());
    const answer = await this.send({ ...req, platformSerial });
    if (answer.status < 200 || answer.status > 299) return this.errorAnswer(req, answer);
    const verified = await this.verifier.verify(answer.headers, answer.text);
    if (!verified.ok) {
      this.options.log?.warn(
        { channel: this.options.channel, path: pathOnly(req.path), status: answer.status, requestId: answer.requestId, reason: verified.reason },
        'payment platform answer refused',
      );
      throw new KitError('channel_error', `payment platform answer to ${req.method} ${pathOnly(req.path)} refused: ${verified.message}`);
    }
    return answer;
  }

  /**
   * An error answer, read without verifying it: the platform leaves the signature headers off some,
   * and every official SDK reads a non-2xx before (and instead of) verifying (wechatpay-go
   * `core/client.go` `CheckResponse`, wechatpay-java `AbstractHttpClient.validateResponse`,
   * wechatpay-axios-plugin `decorator.js`). It is never a success: only its `code` and `message`
   * are read. `SYSTEM_ERROR`, `FREQUENCY_LIMITED` (HTTP 429) and any 5xx ask for the same request
   * again later: 503 `channel_unavailable` with `Retry-After`, naming the platform's code, and the
   * callers keep their `out_trade_no`/`out_refund_no` for the next try.
   */
  private errorAnswer(req: V3Request, answer: V3Answer): V3Answer {
    const { code, message } = errorBody(answer.body);
    if (req.answers?.has(code)) return answer;
    const retryable = RETRYABLE_CODES.has(code) || answer.status === 429 || answer.status >= 500;
    this.options.log?.warn(
      {
        channel: this.options.channel,
        path: pathOnly(req.path),
        status: answer.status,
        code,
        requestId: answer.requestId,
        signed: answer.headers.signature !== undefined,
        retryable,
      },
      'payment platform error answer',
    );
    if (!retryable) return answer;
    const what = `${code || `HTTP ${answer.status}`}${message ? ` ${message}` : ''}${answer.requestId ? ` (Request-ID ${answer.requestId})` : ''}`;
    throw new KitError(
      'channel_unavailable',
      `the payment platform asks to send ${req.method} ${pathOnly(req.path)} again later: HTTP ${answer.status} ${what}`,
      {
        retryAfterSeconds: answer.retryAfterSeconds ?? PLATFORM_RETRY_AFTER_SECONDS,
      },
    );
  }

  /**
   * The answer as it came, unverified (`call` verifies; `/v3/certificates` is verified with what it
   * carries). A repeatable call goes to the backup domain when the main one refuses the connection,
   * does not answer in time (a gateway that accepts and never answers) or answers 5xx, like
   * wechatpay-java's `OkHttpMultiDomainInterceptor` (any I/O failure, read timeouts included).
   * PAY_GATEWAY_TIMEOUT bounds the whole call, backup included, because the jobs' leases and the
   * takeover of interrupted calls count on it: with a backup to try, the main domain gets half.
   */
  async send(req: V3Request): Promise<V3Answer> {
    const backup = req.repeatable ? this.options.backupUrl : undefined;
    const deadline = this.options.clock.now() + this.options.timeoutMs;
    let failure: unknown;
    try {
      const answer = await this.once(this.options.baseUrl, req, backup ? Math.ceil(this.options.timeoutMs / 2) : this.options.timeoutMs);
      if (!backup || answer.status < 500) return answer;
      failure = new Error(`HTTP ${answer.status}`);
    } catch (e) {
      failure = e;
      if (!backup || !(unreachable(e) || timedOut(e))) throw this.unavailable(req, e);
    }
    this.options.log?.warn(
      { channel: this.options.channel, method: req.method, path: pathOnly(req.path), host: hostOf(backup), err: (failure as Error).message },
      'payment platform call sent again to the backup domain',
    );
    try {
      return await this.once(backup, req, Math.max(1, deadline - this.options.clock.now()));
    } catch (e) {
      throw this.unavailable(req, e);
    }
  }

  private unavailable(req: V3Request, e: unknown): KitError {
    const why = timedOut(e) ? `no answer within PAY_GATEWAY_TIMEOUT (${this.options.timeoutMs} ms)` : (e as Error).message;
    return new KitError('channel_unavailable', `payment platform ${req.method} ${pathOnly(req.path)} failed: ${why}`);
  }

  /**
   * A signed `GET` of a file the platform handed out (a bill's `download_url`): its answer is the
   * file itself, not signed, so the caller checks it (the bill's hash) instead. Bytes, as sent.
   */
  async download(url: string): Promise<Buffer> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new KitError('channel_error', 'the platform handed out a download URL that is not a URL');
    }
    const path = `${target.pathname}${target.search}`;
    const started = performance.now();
    const log = { channel: this.options.channel, method: 'GET', host: target.host, path: target.pathname };
    // Named like every request (wechatpay-java's `AbstractHttpClient.download` does too).
    const serial = await this.verifier.acceptSerial?.();
    let res: Response;
    let body: Buffer;
    try {
      res = await fetch(target, {
        headers: {
          accept: '*/*',
          'user-agent': 'merchant-kit',
          authorization: authorization(this.options.signer, 'GET', path, '', unixSeconds(this.options.clock.now())),
          ...(serial ? { 'wechatpay-serial': serial } : {}),
        },
        signal: this.options.clock.timeout(Math.max(this.options.timeoutMs, 60_000)),
      });
      body = Buffer.from(await res.arrayBuffer());
    } catch (e) {
      this.options.log?.warn({ ...log, ms: Math.round(performance.now() - started), err: (e as Error).message }, 'payment platform download failed');
      throw new KitError('channel_unavailable', `payment platform download failed: ${(e as Error).message}`);
    }
    const requestId = res.headers.get('request-id') ?? undefined;
    this.options.log?.info(
      { ...log, status: res.status, requestId, bytes: body.length, ms: Math.round(performance.now() - started) },
      'payment platform download',
    );
    if (res.status !== 200)
      throw new KitError('channel_error', `payment platform download answered HTTP ${res.status}${requestId ? ` (Request-ID ${requestId})` : ''}`);
    return body;
  }

  private async once(base: string, req: V3Request, timeoutMs: number): Promise<V3Answer> {
    const started = performance.now();
    const body = req.body === undefined ? '' : JSON.stringify(req.body);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'merchant-kit',
      authorization: authorization(this.options.signer, req.method, req.path, body, unixSeconds(this.options.clock.now())),
    };
    if (body) headers['content-type'] = 'application/json';
    if (req.platformSerial) headers['wechatpay-serial'] = req.platformSerial;
    const url = `${base.replace(/\/+$/, '')}${req.path}`;
    const log = { channel: this.options.channel, method: req.method, host: hostOf(base), path: pathOnly(req.path) };
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method: req.method, headers, body: body || undefined, signal: this.options.clock.timeout(timeoutMs) });
      text = await res.text();
    } catch (e) {
      this.options.log?.warn({ ...log, ms: Math.round(performance.now() - started), err: (e as Error).message }, 'payment platform call failed');
      throw e;
    }
    const requestId = res.headers.get('request-id') ?? undefined;
    let parsed: Record<string, unknown> | null = null;
    if (text) {
      try {
        const json: unknown = JSON.parse(text);
        parsed = json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
      } catch {
        parsed = null;
      }
    }
    const code = res.status >= 400 ? errorBody(parsed).code : '';
    // An expected answer says its code in the message, so that a 400 that is no error does not read as one.
    if (code && req.answers?.has(code))
      this.options.log?.info({ ...log, code, requestId, ms: Math.round(performance.now() - started) }, `payment platform answer ${code}`);
    else this.options.log?.info({ ...log, status: res.status, requestId, ms: Math.round(performance.now() - started) }, 'payment platform call');
    const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
    return {
      status: res.status,
      body: parsed,
      text,
      headers: signedHeaders((n) => res.headers.get(n)),
      requestId,
      ...(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3_600 ? { retryAfterSeconds: retryAfter } : {}),
    };
  }
}

/** Queries can carry merchant numbers; log lines carry the path only, like the service's own request log. */
const pathOnly = (p: string): string => p.split('?')[0];

function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}
