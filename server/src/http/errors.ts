/**
 * The one place failures become HTTP answers: `{version, status: "fail", error, code, msg, traceId}`.
 * Client mistakes are 4xx; only our own faults are 5xx, and their message is not leaked.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { AmountError, KitError, describeZodError } from '@kit/shared';

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
  return new KitError('internal');
}

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const kit = toKitError(err);
  const log = res.locals.log;
  if (kit.httpStatus >= 500) log?.error({ err, path: req.path }, 'request failed');
  else log?.debug({ error: kit.error, msg: kit.message }, 'request refused');
  if (res.headersSent) return res.end();
  res.status(kit.httpStatus).json({
    version: res.locals.apiVersion ?? 1,
    status: 'fail',
    error: kit.error,
    code: kit.code,
    msg: kit.message,
    traceId: res.locals.requestId,
  });
};

export const notFound: RequestHandler = (req, _res, next) => {
  next(new KitError('route_not_found', `No endpoint ${req.method} ${req.path}`));
};
