/**
 * The merchant side of the payment-result callback (specification section 6):
 * verifying `_s` with the shared `verify`, checking that `notifyTime` is recent, and an HTTP handler
 * for Express or plain `node:http` that reads the raw body, verifies it and hands every event to the
 * merchant's code once. The service signs its callbacks with `signCallbackUrl`, from this file too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { callbackEventSchema, type CallbackEvent } from './api/payment';
import { describeZodError } from './api/common';
import { encodeQuery, parseQueryString, signRequest, verify, type QueryPairs, type SignatureFailure } from './signing';

/** How far `_t` and `notifyTime` may be from the receiver's clock (the specification recommends 3 minutes). */
export const CALLBACK_TOLERANCE_MS = 180_000;

export type CallbackFailure = SignatureFailure | 'notify_time_out_of_window' | 'invalid_body' | 'app_mismatch';

export class CallbackVerificationError extends Error {
  constructor(
    readonly reason: CallbackFailure,
    message: string,
  ) {
    super(message);
    this.name = 'CallbackVerificationError';
  }
}

/** A callback as received: the request target (`url`, absolute or `/path?query`) or `path` + `query`, and the raw body. */
export interface CallbackRequest {
  method?: string;
  url?: string;
  path?: string;
  /** Raw query string (without `?`) or already-decoded pairs. */
  query?: string | QueryPairs;
  rawBody: string | Uint8Array;
}

export interface VerifyCallbackOptions {
  /** Default 3 minutes. Applies to `_t` and to `notifyTime`. */
  toleranceMs?: number;
  /** When given, `_appid` must equal it. */
  appId?: string;
  now?: number;
}

/** Splits a request target into the path that was signed and its raw query. */
export function splitTarget(url: string): { path: string; rawQuery: string } {
  const noHash = url.split('#', 1)[0];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(noHash)) {
    const u = new URL(noHash);
    return { path: u.pathname, rawQuery: u.search.slice(1) };
  }
  const q = noHash.indexOf('?');
  return q < 0 ? { path: noHash || '/', rawQuery: '' } : { path: noHash.slice(0, q) || '/', rawQuery: noHash.slice(q + 1) };
}

/**
 * Verifies a callback and returns its event; throws `CallbackVerificationError` saying why not.
 * Checks the signature over method, path, query and the raw body bytes, `_t` and `notifyTime`
 * against the clock, and the body's shape.
 */
export function verifyCallback(req: CallbackRequest, appSecret: string, opts: VerifyCallbackOptions = {}): CallbackEvent {
  const tolerance = opts.toleranceMs ?? CALLBACK_TOLERANCE_MS;
  const now = opts.now ?? Date.now();
  let path = req.path;
  let pairs: QueryPairs;
  try {
    if (req.url !== undefined) {
      const t = splitTarget(req.url);
      path ??= t.path;
      pairs = parseQueryString(t.rawQuery);
    } else {
      pairs = typeof req.query === 'string' ? parseQueryString(req.query.replace(/^\?/, '')) : (req.query ?? []);
    }
  } catch {
    throw new CallbackVerificationError('signature_malformed', 'the query holds malformed percent-encoding');
  }
  if (!path) throw new CallbackVerificationError('signature_missing', 'give the request url, or path and query');
  const body = typeof req.rawBody === 'string' ? Buffer.from(req.rawBody, 'utf8') : req.rawBody;
  const result = verify({ method: req.method ?? 'POST', path, query: pairs, body }, () => appSecret, { toleranceMs: tolerance, now });
  if (!result.ok) throw new CallbackVerificationError(result.reason, result.detail);
  if (opts.appId !== undefined && result.appId !== opts.appId) {
    throw new CallbackVerificationError('app_mismatch', `_appid is "${result.appId}", expected "${opts.appId}"`);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw new CallbackVerificationError('invalid_body', 'the body is not JSON');
  }
  const parsed = callbackEventSchema.safeParse(json);
  if (!parsed.success) throw new CallbackVerificationError('invalid_body', describeZodError(parsed.error));
  const at = Date.parse(parsed.data.notifyTime);
  if (!Number.isFinite(at) || Math.abs(now - at) > tolerance) {
    throw new CallbackVerificationError('notify_time_out_of_window', `notifyTime is more than ${tolerance / 1000} s from this clock`);
  }
  return parsed.data;
}

/**
 * Signs a callback for `notifyCallbackUrl` like a call to the service (docs/signing.md: method POST,
 * the URL's path, its query plus `_appid` and `_t`) and returns the URL to POST to. The service uses this for every attempt.
 */
export function signCallbackUrl(notifyCallbackUrl: string, body: string, creds: { appId: string; appSecret: string }, now: number = Date.now()): string {
  const u = new URL(notifyCallbackUrl);
  const pairs = signRequest({ method: 'POST', path: u.pathname, query: parseQueryString(u.search.slice(1)), body }, creds, now);
  return `${u.origin}${u.pathname}?${encodeQuery(pairs)}`;
}

/** The parts of an Express (or `node:http`) request this handler reads. */
type CallbackHttpRequest = IncomingMessage & { body?: unknown; originalUrl?: string; _body?: boolean };

export interface CallbackHandlerOptions {
  appSecret: string;
  /** Your own code; runs once per event. Throwing makes the answer 500, so the service retries. */
  onEvent(event: CallbackEvent): unknown | Promise<unknown>;
  /** Expected `_appid` (optional). */
  appId?: string;
  toleranceMs?: number;
  /**
   * The path the service signed, when a proxy rewrites it before it reaches you (e.g. strips a
   * prefix). Defaults to the path of `req.originalUrl ?? req.url`.
   */
  signedPath?(req: IncomingMessage): string;
  /** Largest body accepted; default 64 KiB. */
  maxBodyBytes?: number;
  /** How many handled events are remembered to answer repeats without calling `onEvent` again; default 10,000. */
  remember?: number;
}

/** The body was parsed before this handler saw it, so its exact bytes, which the signature covers, are gone. */
export class CallbackBodyParsedError extends Error {
  constructor() {
    super(
      'callbackHandler needs the raw request body, but it was already parsed (is express.json() mounted before it?). ' +
        'Mount callbackHandler before any body parser, or give it the bytes with express.raw({ type: "*/*" }) on its route.',
    );
    this.name = 'CallbackBodyParsedError';
  }
}

/**
 * An HTTP handler for the callback route: reads the raw body, verifies it, runs `onEvent` once per
 * event (`prepayId` + `status`), and answers `OK`. Repeats of an event that was handled answer `OK`
 * without running `onEvent` again; a repeat that arrives while the first is still running waits
 * for it. Memory of handled events is per process: keep `onEvent` idempotent when several
 * processes receive callbacks.
 */
export function callbackHandler(opts: CallbackHandlerOptions) {
  const remember = opts.remember ?? 10_000;
  const maxBytes = opts.maxBodyBytes ?? 64 * 1024;
  const handled = new Map<string, Promise<void>>();

  const once = (event: CallbackEvent): Promise<void> => {
    const key = `${event.prepayId}\n${event.status}`;
    const existing = handled.get(key);
    if (existing) return existing;
    const run = (async () => {
      await opts.onEvent(event);
    })();
    handled.set(key, run);
    run.catch(() => handled.delete(key));
    while (handled.size > remember) handled.delete(handled.keys().next().value as string);
    return run;
  };

  return async (req: CallbackHttpRequest, res: ServerResponse, next?: (err?: unknown) => void): Promise<void> => {
    const answer = (status: number, text: string) => {
      res.statusCode = status;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(text);
    };
    let raw: Buffer;
    try {
      raw = await readRawBody(req, maxBytes);
    } catch (err) {
      if (err instanceof CallbackBodyParsedError) {
        if (next) return next(err);
        return answer(500, err.message);
      }
      return answer(400, `unreadable body: ${(err as Error).message}`);
    }
    let event: CallbackEvent;
    try {
      event = verifyCallback({ method: req.method, url: req.originalUrl ?? req.url ?? '/', path: opts.signedPath?.(req), rawBody: raw }, opts.appSecret, {
        toleranceMs: opts.toleranceMs,
        appId: opts.appId,
      });
    } catch (err) {
      const e = err as CallbackVerificationError;
      return answer(e.reason?.startsWith('signature') || e.reason === 'app_mismatch' ? 401 : 400, `refused: ${e.reason}: ${e.message}`);
    }
    try {
      await once(event);
    } catch {
      // Not OK: the service retries later, and `onEvent` runs again then.
      return answer(500, 'event handler failed');
    }
    answer(200, 'OK');
  };
}

async function readRawBody(req: CallbackHttpRequest, maxBytes: number): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (typeof req.body === 'string') return Buffer.from(req.body, 'utf8');
  if (req.body !== undefined && (req._body || req.readableEnded)) throw new CallbackBodyParsedError();
  if (req.readableEnded) {
    // Consumed by something else without leaving the bytes.
    throw new CallbackBodyParsedError();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new Error(`body larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
