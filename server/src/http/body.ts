/**
 * Reads the body as raw bytes (kept for signature checks) and parses JSON from them. The parsed
 * object is never re-serialised for verification. One middleware: a request without a body (every
 * GET) passes straight through without touching the body parser.
 */
import express, { type RequestHandler } from 'express';
import { KitError } from '@kit/shared';

const EMPTY = Buffer.alloc(0);
/** Refuses bytes that are not UTF-8 instead of replacing them with U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** A `\uD800`–`\uDFFF` escape: only then can JSON.parse produce a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /\p{Cs}/u;

/** Whether any string (or key) inside a parsed JSON value holds a lone UTF-16 surrogate. */
export function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return LONE_SURROGATE.test(v);
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(x));
  return false;
}

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
      let text: string;
      try {
        text = utf8.decode(buf);
      } catch {
        return next(new KitError('invalid_request', 'The body is not well-formed UTF-8'));
      }
      try {
        req.body = JSON.parse(text);
      } catch (e) {
        return next(new KitError('invalid_json', `The body is not valid JSON: ${(e as Error).message}`));
      }
      // Text that is not well-formed Unicode never reaches a rule, the database or the ledger.
      if (SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(req.body)) {
        req.body = undefined;
        return next(new KitError('invalid_request', 'The body holds text that is not well-formed Unicode (a lone UTF-16 surrogate)'));
      }
      next();
    });
  };
}
