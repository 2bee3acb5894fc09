/**
 * The kit's API v3 client: signs each request with the merchant key, verifies each answer (error
 * answers too) with the platform keys before anything reads it, logs each call with the platform's
 * `Request-ID`, and tries the backup domain when the main one cannot be reached or answers 5xx,
 * for calls the caller says are safe to repeat.
 */
import { KitError } from '@kit/shared';
import { authorization, type MerchantSigner } from './sign';
import { signedHeaders, type SignedHeaders, type VerifyResult } from './verify';

export interface V3CallLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Who verifies answers: a public key, or certificates that may need fetching first (platform-key-source.ts). */
export interface AnswerVerifier {
  verify(h: SignedHeaders, body: string): Promise<VerifyResult>;
}

export interface V3ClientOptions {
  baseUrl: string;
  backupUrl?: string;
  signer: MerchantSigner;
  timeoutMs: number;
  log?: V3CallLog;
  /** Named in log lines. */
  channel?: string;
}

export interface V3Request {
  method: 'GET' | 'POST';
  /** `/v3/…` with its query string, exactly as sent. */
  path: string;
  body?: object;
  /** Safe to send again (to the backup domain) when the first try never got an answer or got a 5xx. */
  repeatable: boolean;
  /** Id of the platform key personal data in the body is encrypted to (`Wechatpay-Serial`). */
  platformSerial?: string;
}

export interface V3Answer {
  status: number;
  /** The parsed JSON body; null for an empty one (204). */
  body: Record<string, unknown> | null;
  text: string;
  headers: SignedHeaders;
  requestId?: string;
}

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET']);

/** A failure before any answer, where the request certainly or possibly never reached the platform. */
function unreachable(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string } }).cause;
  return cause?.code !== undefined && CONNECTION_ERRORS.has(cause.code);
}

export class V3Client {
  constructor(
    private readonly options: V3ClientOptions,
    private readonly verifier: AnswerVerifier,
  ) {}

  /** An answer whose signature verified; `channel_unavailable` without one, `channel_error` for one that does not verify. */
  async call(req: V3Request): Promise<V3Answer> {
    const answer = await this.send(req);
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

  /** The answer as it came, unverified: only for `/v3/certificates`, whose answer is verified with what it carries. */
  async send(req: V3Request): Promise<V3Answer> {
    const bases = [this.options.baseUrl, ...(req.repeatable && this.options.backupUrl ? [this.options.backupUrl] : [])];
    let failure: unknown;
    for (const [i, base] of bases.entries()) {
      const last = i === bases.length - 1;
      try {
        const answer = await this.once(base, req);
        if (answer.status >= 500 && !last) {
          failure = new Error(`HTTP ${answer.status}`);
          continue;
        }
        return answer;
      } catch (e) {
        failure = e;
        if (!last && unreachable(e)) continue;
        break;
      }
    }
    throw new KitError('channel_unavailable', `payment platform ${req.method} ${pathOnly(req.path)} failed: ${(failure as Error).message}`);
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
    const started = Date.now();
    const log = { channel: this.options.channel, method: 'GET', host: target.host, path: target.pathname };
    let res: Response;
    let body: Buffer;
    try {
      res = await fetch(target, {
        headers: { accept: '*/*', 'user-agent': 'merchant-kit', authorization: authorization(this.options.signer, 'GET', path, '') },
        signal: AbortSignal.timeout(Math.max(this.options.timeoutMs, 60_000)),
      });
      body = Buffer.from(await res.arrayBuffer());
    } catch (e) {
      this.options.log?.warn({ ...log, ms: Date.now() - started, err: (e as Error).message }, 'payment platform download failed');
      throw new KitError('channel_unavailable', `payment platform download failed: ${(e as Error).message}`);
    }
    const requestId = res.headers.get('request-id') ?? undefined;
    this.options.log?.info({ ...log, status: res.status, requestId, bytes: body.length, ms: Date.now() - started }, 'payment platform download');
    if (res.status !== 200)
      throw new KitError('channel_error', `payment platform download answered HTTP ${res.status}${requestId ? ` (Request-ID ${requestId})` : ''}`);
    return body;
  }

  private async once(base: string, req: V3Request): Promise<V3Answer> {
    const started = Date.now();
    const body = req.body === undefined ? '' : JSON.stringify(req.body);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'merchant-kit',
      authorization: authorization(this.options.signer, req.method, req.path, body),
    };
    if (body) headers['content-type'] = 'application/json';
    if (req.platformSerial) headers['wechatpay-serial'] = req.platformSerial;
    const url = `${base.replace(/\/+$/, '')}${req.path}`;
    const log = { channel: this.options.channel, method: req.method, host: hostOf(base), path: pathOnly(req.path) };
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method: req.method, headers, body: body || undefined, signal: AbortSignal.timeout(this.options.timeoutMs) });
      text = await res.text();
    } catch (e) {
      this.options.log?.warn({ ...log, ms: Date.now() - started, err: (e as Error).message }, 'payment platform call failed');
      throw e;
    }
    const requestId = res.headers.get('request-id') ?? undefined;
    this.options.log?.info({ ...log, status: res.status, requestId, ms: Date.now() - started }, 'payment platform call');
    let parsed: Record<string, unknown> | null = null;
    if (text) {
      try {
        const json: unknown = JSON.parse(text);
        parsed = json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
      } catch {
        parsed = null;
      }
    }
    return { status: res.status, body: parsed, text, headers: signedHeaders((n) => res.headers.get(n)), requestId };
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
