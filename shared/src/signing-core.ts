/**
 * The part of request signing (docs/signing.md) that needs no hashing: the canonical query and the
 * string to sign, given the body's hash. Free of Node modules, so that a browser signs with the
 * same code (the API reference page's "Try it", with WebCrypto); `signing.ts` hashes and signs with
 * `node:crypto` on top of it.
 */

export type QueryInput = Record<string, string | number | boolean | null | undefined | readonly (string | number)[]>;
export type QueryPairs = ReadonlyArray<readonly [string, string]>;

/** How far `_t` may be from the verifier's clock. */
export const SIGNATURE_TOLERANCE_MS = 300_000;

/** RFC 3986 percent-encoding: unreserved characters kept, everything else `%XX` upper case. */
const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;

export function rfc3986(value: string): string {
  if (UNRESERVED.test(value)) return value;
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Flattens a query object into pairs; arrays give one pair per value, null/undefined are left out. */
export function toPairs(query: QueryInput | QueryPairs): Array<[string, string]> {
  if (Array.isArray(query)) return (query as QueryPairs).map(([k, v]) => [k, v]);
  const pairs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(query as QueryInput)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) pairs.push([k, String(item)]);
    else pairs.push([k, String(v)]);
  }
  return pairs;
}

/** Every field except `_s`, encoded, sorted by encoded key then encoded value, joined `k=v&…`. */
export function canonicalQuery(query: QueryInput | QueryPairs): string {
  return toPairs(query)
    .filter(([k]) => k !== '_s')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** The four lines: METHOD, path, canonical query, the body's SHA-256 (lower-case hex). */
export function stringToSignWith(input: { method: string; path: string; query: QueryInput | QueryPairs }, bodyHashHex: string): string {
  return [input.method.toUpperCase(), input.path, canonicalQuery(input.query), bodyHashHex].join('\n');
}
