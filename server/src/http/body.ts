/**
 * Reads the body as raw bytes (kept for signature checks) and parses JSON from them. The parsed
 * object is never re-serialised for verification. One middleware: a request without a body (every
 * GET) passes straight through without touching the body parser.
 */
import express, { type RequestHandler } from 'express';
import { KitError } from '@kit/shared';

const EMPTY = Buffer.alloc(0);

function hasBody(headers: import('node:http').IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

export function jsonBody(limit: string | number): RequestHandler {
  const raw = express.raw({ type: () => true, limit });
  return (req, res, next) => {
    if (!hasBody(req.headers)) {
      req.rawBody = EMPTY;
      req.body = undefined;
      return next();
    }
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      const buf = Buffer.isBuffer(req.body) ? req.body : EMPTY;
      req.rawBody = buf;
      req.body = undefined;
      if (buf.length === 0) return next();
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
        return next(new KitError('unsupported_media_type', `Content-Type must be application/json, got "${type || 'none'}"`));
      }
      try {
        req.body = JSON.parse(buf.toString('utf8'));
      } catch (e) {
        return next(new KitError('invalid_json', `The body is not valid JSON: ${(e as Error).message}`));
      }
      next();
    });
  };
}
