/**
 * Signature check (docs/signing.md) for signed routes: raw query and raw body bytes, constant-time
 * comparison (in shared/signing), ±tolerance on `_t`, and replay refusal for state-changing calls.
 */
import type { Clock } from '@kit/shared/clock';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { KitError, parseQueryString, signatureFields, verify, type ErrorId } from '@kit/shared';
import type { AppService } from '../apps/app-service';

export interface SignatureOptions {
  apps: AppService;
  /** Prefix of the service's base URL on this server; signed paths are relative to it. */
  basePath: string;
  toleranceMs: number;
  /** The service's clock, which `_t` must be close to. */
  clock: Clock;
  /**
   * The route records the signature in the replay guard itself, in the transaction of the change
   * it makes (`res.locals.replay`): one commit instead of two (order creation on PostgreSQL).
   */
  replayInService?: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

export function signedPath(originalUrl: string, basePath: string): string {
  const q = originalUrl.indexOf('?');
  const path = q < 0 ? originalUrl : originalUrl.slice(0, q);
  return basePath && path.startsWith(basePath) ? path.slice(basePath.length) || '/' : path;
}

export function rawQuery(originalUrl: string): string {
  const q = originalUrl.indexOf('?');
  return q < 0 ? '' : originalUrl.slice(q + 1);
}

export function requireSignature(opts: SignatureOptions): RequestHandler {
  const refuse = (reason: ErrorId, detail: string) => new KitError(reason, detail);
  const check = (req: Request, res: Response, next: NextFunction, pairs: Array<[string, string]>, secret: string | null) => {
    const result = verify({ method: req.method, path: signedPath(req.originalUrl, opts.basePath), query: pairs, body: req.rawBody }, () => secret, {
      toleranceMs: opts.toleranceMs,
      now: opts.clock.now(),
    });
    if (!result.ok) return next(refuse(result.reason, result.detail));
    res.locals.appId = result.appId;
    res.locals.signedAt = result.t;
    if (SAFE_METHODS.has(req.method)) return next();
    const sig = signatureFields(pairs).s!;
    if (opts.replayInService) {
      res.locals.replay = { appId: result.appId, sig, expiresAt: result.t + opts.toleranceMs };
      return next();
    }
    opts.apps.recordSignature(result.appId, sig, result.t + opts.toleranceMs).then((fresh) => {
      if (!fresh) return next(refuse('signature_replayed', 'this signature was already used; sign the retry with a new _t'));
      // A request refused for its own shape changed nothing and would be refused again: its
      // signature is given back (the error handler calls this), so fuzzing fills no table.
      res.locals.unspendSignature = () => opts.apps.forgetSignature(result.appId, sig);
      next();
    }, next);
  };
  // Synchronous whenever the app's secret is cached: reads (GET) then run without a promise
  // (measurably cheaper on every read: docs/performance.md, "What the speed tricks buy").
  return (req, res, next) => {
    let pairs: Array<[string, string]>;
    try {
      pairs = parseQueryString(rawQuery(req.originalUrl));
    } catch {
      // Malformed percent-encoding, or encoded bytes that are not UTF-8 (e.g. a lone surrogate).
      return next(new KitError('invalid_request', 'The query is not well-formed: bad percent-encoding or text that is not UTF-8'));
    }
    const { appId } = signatureFields(pairs);
    const cached = appId ? opts.apps.cachedSecret(appId) : null;
    if (cached !== undefined) return check(req, res, next, pairs, cached);
    opts.apps.secretOf(appId!).then((secret) => check(req, res, next, pairs, secret), next);
  };
}

/** The verified signer (only on routes behind `requireSignature`). */
export function signer(res: { locals: { appId?: string } }): string {
  if (!res.locals.appId) throw new KitError('signature_missing');
  return res.locals.appId;
}
