/**
 * Protocol v2 signature: fields with a non-empty value, except `sign`, sorted by name (ASCII),
 * joined `k=v&…`, then `&key=<API key>`; MD5 or HMAC-SHA256 (keyed with the API key), upper-case hex.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGN_TYPES = ['MD5', 'HMAC-SHA256'] as const;
export type SignType = (typeof SIGN_TYPES)[number];

export const isSignType = (v: unknown): v is SignType => v === 'MD5' || v === 'HMAC-SHA256';

export function signString(fields: Record<string, string | number | undefined | null>, key: string): string {
  const parts = Object.keys(fields)
    .filter((k) => k !== 'sign' && fields[k] !== undefined && fields[k] !== null && String(fields[k]) !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`);
  parts.push(`key=${key}`);
  return parts.join('&');
}

export function signFields(fields: Record<string, string | number | undefined | null>, key: string, type: SignType): string {
  const text = signString(fields, key);
  const digest = type === 'MD5' ? createHash('md5').update(text, 'utf8') : createHmac('sha256', Buffer.from(key, 'utf8')).update(text, 'utf8');
  return digest.digest('hex').toUpperCase();
}

/** Constant-time check of `fields.sign`. */
export function verifyFields(fields: Record<string, string>, key: string, type: SignType): boolean {
  const given = fields.sign;
  if (typeof given !== 'string' || !/^[0-9A-Fa-f]+$/.test(given)) return false;
  const expected = Buffer.from(signFields(fields, key, type), 'utf8');
  const actual = Buffer.from(given.toUpperCase(), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
