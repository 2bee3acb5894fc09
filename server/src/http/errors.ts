/**
 * The one place failures become HTTP answers: `{version, status: "fail", error, code, msg, traceId}`.
 * Client mistakes are 4xx; only our own faults are 5xx, and their message is not leaked.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { AmountError, KitError, describeZodError } from '@kit/shared';
import { isDatabaseUnavailable } from '../db/errors';

/** `Retry-After` of a 503 `unavailable`: a database usually comes back (failover, disk freed) within seconds. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export function toKitError(err: unknown): KitError {
  if (err instanceof KitError) return err;
  if (err instanceof ZodError) return new KitError('invalid_request', describeZodError(err));
  if (err instanceof AmountError) return new KitError('invalid_amount', err.message);
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.too.large') return new KitError('body_too_large');
  if (e?.type === 'request.aborted' || e?.type === 'request.size.invalid' || e?.type === 'stream.encoding.set') {
    return new KitError('invalid_request', 'The body could not be read');
  }
  if (e instanceof URIError) return new KitError('invalid_request', 'The URL holds malformed percent-encoding');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return new KitError('invalid_request', e.message);
  if (isDatabaseUnavailable(err)) return new KitError('unavailable', undefined, { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
  return new KitError('internal');
}

/** The failure answer of the specification's shape: `{version, status: "fail", error, code, msg, traceId}`. */
export function failBody(kit: KitError, res: Response) {
  return { version: res.locals.apiVersion ?? 1, status: 'fail' as const, error: kit.error, code: kit.code, msg: kit.message, traceId: res.locals.requestId };
}

/** Refusals that depend only on the request's own bytes: the same request would be refused again. */
const SHAPE_ERRORS = new Set(['invalid_request', 'invalid_json', 'invalid_amount']);

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const kit = toKitError(err);
  const log = res.locals.log;
  // The database being away is an operations event, not a bug: one warn line without a stack.
  if (kit.error === 'unavailable') log?.warn({ path: req.path, cause: (err as Error)?.message }, 'database unavailable; answered 503');
  else if (kit.httpStatus >= 500) log?.error({ err, path: req.path }, 'request failed');
  else log?.debug({ error: kit.error, msg: kit.message }, 'request refused');
  if (res.headersSent) return res.end();
  const unspend = res.locals.unspendSignature;
  if (unspend && SHAPE_ERRORS.has(kit.error)) {
    res.locals.unspendSignature = undefined;
    // Answered once the signature is free again; if forgetting fails, it simply stays spent.
    const answer = () => answerFailure(kit, res);
    return void unspend().then(answer, answer);
  }
  answerFailure(kit, res);
};

function answerFailure(kit: KitError, res: Response): void {
  if (kit.error === 'method_not_allowed' && Array.isArray(kit.details)) res.setHeader('allow', kit.details.join(', '));
  const retryAfter =
    (kit.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds ??
    (kit.error === 'unavailable' ? UNAVAILABLE_RETRY_AFTER_SECONDS : undefined);
  if (typeof retryAfter === 'number') res.setHeader('retry-after', String(retryAfter));
  res.status(kit.httpStatus).json(failBody(kit, res));
}

/**
 * For a path that exists with other methods (docs/api.md): 405 `method_not_allowed` with `Allow`;
 * OPTIONS is answered with the methods, as HTTP expects.
 */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const methods = [...new Set([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])])];
  // Named: route listings (the OpenAPI check) tell these answers from endpoints by it.
  return function answerMethodNotAllowed(req, res, next) {
    if (req.method === 'OPTIONS')
      return void res
        .setHeader('allow', [...methods, 'OPTIONS'].join(', '))
        .status(204)
        .end();
    next(new KitError('method_not_allowed', `${req.method} is not allowed on ${req.path}; use ${methods.join(' or ')}`, methods));
  };
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new KitError('route_not_found', `No endpoint ${req.method} ${req.path}`));
};
