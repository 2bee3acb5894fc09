/**
 * Request signing (docs/signing.md). The client, the server, the callback sender, the callback
 * verifier and every test use these functions; there is no other copy. The rules that need no
 * hashing (the canonical query, the string to sign) are in `signing-core.ts`, which the API
 * reference page's "Try it" also signs with in the browser.
 *
 *   stringToSign = METHOD \n path \n canonicalQuery \n hex(sha256(body))
 *   _s           = hex(hmac-sha256(appSecret, stringToSign))
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_TOLERANCE_MS, rfc3986, stringToSignWith, toPairs, type QueryInput, type QueryPairs } from './signing-core';

export { SIGNATURE_TOLERANCE_MS, canonicalQuery, rfc3986, toPairs, type QueryInput, type QueryPairs } from './signing-core';

export type Body = string | Uint8Array | null | undefined;

const EMPTY_BODY_HASH = createHash('sha256').update('').digest('hex');

export function bodyHash(body: Body): string {
  if (body === undefined || body === null || body.length === 0) return EMPTY_BODY_HASH;
  return createHash('sha256').update(body).digest('hex');
}

export interface SignInput {
  method: string;
  /** Path relative to the service's base URL, as sent (already percent-encoded where needed). */
  path: string;
  query: QueryInput | QueryPairs;
  body?: Body;
}

export function stringToSign(input: SignInput): string {
  return stringToSignWith(input, bodyHash(input.body));
}

export function sign(input: SignInput, appSecret: string): string {
  return createHmac('sha256', Buffer.from(appSecret, 'utf8')).update(stringToSign(input)).digest('hex');
}

/** Why a signature was refused; each maps to one `error` id in responses. */
export type SignatureFailure = 'signature_missing' | 'signature_malformed' | 'timestamp_invalid' | 'timestamp_out_of_window' | 'signature_mismatch';

export type VerifyResult = { ok: true; appId: string; t: number } | { ok: false; reason: SignatureFailure; detail: string };

export interface VerifyOptions {
  now?: number;
  toleranceMs?: number;
}

/** Reads `_appid`, `_t`, `_s` from the pairs without verifying anything. */
export function signatureFields(query: QueryPairs): { appId?: string; t?: string; s?: string; duplicated: boolean } {
  const seen = new Map<string, string[]>();
  for (const [k, v] of query) if (k === '_appid' || k === '_t' || k === '_s') seen.set(k, [...(seen.get(k) ?? []), v]);
  const one = (k: string) => seen.get(k)?.[0];
  return { appId: one('_appid'), t: one('_t'), s: one('_s'), duplicated: [...seen.values()].some((v) => v.length > 1) };
}

/**
 * Checks the `_t` window and the HMAC in constant time. `secretFor` resolves the AppSecret of
 * `_appid` (return null for an unknown app, which fails the same way as a wrong signature).
 */
export function verify(input: SignInput & { query: QueryPairs }, secretFor: (appId: string) => string | null, opts: VerifyOptions = {}): VerifyResult {
  const f = signatureFields(input.query);
  if (!f.appId || !f.t || !f.s) {
    const missing = (['_appid', '_t', '_s'] as const).filter((k) => !f[k === '_appid' ? 'appId' : k === '_t' ? 't' : 's']);
    return { ok: false, reason: 'signature_missing', detail: `missing query field ${missing.join(', ')}` };
  }
  if (f.duplicated) return { ok: false, reason: 'signature_malformed', detail: '_appid, _t and _s must each appear once' };
  if (!/^[0-9a-f]{64}$/.test(f.s)) return { ok: false, reason: 'signature_malformed', detail: '_s must be 64 lower-case hex characters' };
  if (!/^[0-9]{13}$/.test(f.t)) return { ok: false, reason: 'timestamp_invalid', detail: '_t must be Unix time in milliseconds (13 digits)' };
  const t = Number(f.t);
  const now = opts.now ?? Date.now();
  const tolerance = opts.toleranceMs ?? SIGNATURE_TOLERANCE_MS;
  if (Math.abs(now - t) > tolerance) {
    return { ok: false, reason: 'timestamp_out_of_window', detail: `_t is more than ${tolerance / 1000} s from the server clock` };
  }
  const secret = secretFor(f.appId);
  const expected = Buffer.from(secret === null ? '0'.repeat(64) : sign(input, secret), 'hex');
  const given = Buffer.from(f.s, 'hex');
  if (!timingSafeEqual(expected, given) || secret === null) {
    return { ok: false, reason: 'signature_mismatch', detail: 'signature does not match the request' };
  }
  return { ok: true, appId: f.appId, t };
}

/** Signs a request for `appId` and returns the query pairs with `_appid`, `_t` and `_s` added. */
export function signRequest(
  req: { method: string; path: string; query?: QueryInput | QueryPairs; body?: Body },
  creds: { appId: string; appSecret: string },
  now: number = Date.now(),
): Array<[string, string]> {
  const pairs = toPairs(req.query ?? {}).filter(([k]) => k !== '_appid' && k !== '_t' && k !== '_s');
  pairs.push(['_appid', creds.appId], ['_t', String(now)]);
  const s = sign({ method: req.method, path: req.path, query: pairs, body: req.body }, creds.appSecret);
  pairs.push(['_s', s]);
  return pairs;
}

/** Encodes pairs as a query string (RFC 3986, original order). */
export function encodeQuery(pairs: QueryPairs): string {
  return pairs.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
}

/**
 * Parses a raw query string into pairs the way the server reads it: `+` is a space,
 * `%XX` is decoded. Throws on malformed percent-encoding.
 */
export function parseQueryString(raw: string): Array<[string, string]> {
  if (!raw) return [];
  return raw
    .split('&')
    .filter((part) => part.length > 0)
    .map((part) => {
      const eq = part.indexOf('=');
      const k = eq < 0 ? part : part.slice(0, eq);
      const v = eq < 0 ? '' : part.slice(eq + 1);
      return [decodeURIComponent(k.replace(/\+/g, ' ')), decodeURIComponent(v.replace(/\+/g, ' '))];
    });
}
