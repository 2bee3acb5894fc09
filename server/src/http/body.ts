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
/**
 * A `\uD800`–`\uDFFF` or `\u0000` escape: only then can JSON.parse produce a lone surrogate or a
 * NUL (raw control characters are not JSON).
 */
const SUSPECT_ESCAPE = /\\u(?:[dD][89a-fA-F]|0000)/;
// eslint-disable-next-line no-control-regex -- NUL is exactly what it looks for
const BAD_TEXT = /\p{Cs}|\u0000/u;

/**
 * Deepest nesting of arrays and objects a JSON body may have. Deeper bodies are refused before
 * they are parsed: no rule, serialiser or database ever meets one (a 5,000-deep `extraInfo` made
 * `JSON.stringify` throw).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether any string (or key) inside a parsed JSON value holds a lone UTF-16 surrogate or a NUL
 * (U+0000): not well-formed Unicode, and text PostgreSQL cannot store. One rule for every field.
 */
export function hasBadText(v: unknown): boolean {
  if (typeof v === 'string') return BAD_TEXT.test(v);
  if (Array.isArray(v)) return v.some(hasBadText);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => BAD_TEXT.test(k) || hasBadText(x));
  return false;
}

/** Whether JSON text nests arrays and objects deeper than `max` (strings are skipped; the text need not be valid). */
export function nestsDeeperThan(buf: Buffer, max: number): boolean {
  // Most bodies hold fewer brackets than the limit: then they cannot nest deeper.
  let brackets = 0;
  for (let i = 0; i < buf.length && brackets <= max; i++) if (buf[i] === 0x7b || buf[i] === 0x5b) brackets++;
  if (brackets <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** `%00` anywhere in the path or the query: a NUL in a lookup id or a query field. */
const NUL_IN_URL = /%00/;

/** Refuses a URL whose path or query holds a NUL (the same rule as for bodies). */
export function refuseNulInUrl(url: string): KitError | undefined {
  return NUL_IN_URL.test(url) ? new KitError('invalid_request', 'The URL holds a NUL character (%00), which no id or field may contain') : undefined;
}

/**
 * JSON bytes read by the service's rules: nesting at most `MAX_JSON_DEPTH` deep (checked before
 * parsing), UTF-8, JSON, and no NUL or lone surrogate in any string. A refusal is the `KitError` the
 * request answers with. A development plug-in's routes read theirs by the same rules (`dev-plugin.ts`).
 */
export function parseJsonBody(buf: Buffer): unknown {
  if (nestsDeeperThan(buf, MAX_JSON_DEPTH)) throw new KitError('invalid_request', `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    throw new KitError('invalid_request', 'The body is not well-formed UTF-8');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new KitError('invalid_json', `The body is not valid JSON: ${(e as Error).message}`);
  }
  // Text that is not well-formed Unicode, or holds a NUL, never reaches a rule, the database or the ledger.
  if (SUSPECT_ESCAPE.test(text) && hasBadText(body))
    throw new KitError(
      'invalid_request',
      'The body holds text that is not well-formed Unicode (a lone UTF-16 surrogate) or a NUL character (U+0000), which no field may contain',
    );
  return body;
}

/** The rules above, as a development plug-in gets them (`RequestRules` in `plugins/dev-plugin.ts`). */
export const requestRules = { parseJson: parseJsonBody, refuseNulInUrl };

function hasBody(headers: import('node:http').IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

export function jsonBody(limit: string | number): RequestHandler {
  const raw = express.raw({ type: () => true, limit });
  return (req, res, next) => {
    const nul = refuseNulInUrl(req.originalUrl);
    if (nul) return next(nul);
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
        req.body = parseJsonBody(buf);
      } catch (e) {
        return next(e);
      }
      next();
    });
  };
}
