/**
 * Verification of what the platform sends: every answer and every notification carries
 * `Wechatpay-Timestamp`, `-Nonce`, `-Signature` and `-Serial`, signed over `TIMESTAMP\nNONCE\nBODY\n`
 * with the platform key the serial names. A signature starting `WECHATPAY/SIGNTEST/` is the
 * platform probing whether signatures are checked: it must be refused like any forgery.
 */
import { responseMessage, rsaVerify } from './sign';
import type { PlatformKeyring } from './platform-keys';

export const SIGNATURE_WINDOW_MS = 5 * 60_000;
export const PROBE_PREFIX = 'WECHATPAY/SIGNTEST/';

export interface SignedHeaders {
  timestamp?: string;
  nonce?: string;
  signature?: string;
  serial?: string;
}

/** The four headers, read through any case-insensitive getter (fetch `Headers.get`, Express `req.get`). */
export function signedHeaders(get: (name: string) => string | null | undefined): SignedHeaders {
  return {
    timestamp: get('Wechatpay-Timestamp') ?? undefined,
    nonce: get('Wechatpay-Nonce') ?? undefined,
    signature: get('Wechatpay-Signature') ?? undefined,
    serial: get('Wechatpay-Serial') ?? undefined,
  };
}

export type VerifyFailure = 'missing_headers' | 'probe' | 'stale' | 'unknown_serial' | 'bad_signature';
export type VerifyResult = { ok: true; serial: string } | { ok: false; reason: VerifyFailure; message: string };

const fail = (reason: VerifyFailure, message: string): VerifyResult => ({ ok: false, reason, message });

export function verifyPlatformSignature(h: SignedHeaders, body: string, keys: PlatformKeyring, now: number): VerifyResult {
  const { timestamp, nonce, signature, serial } = h;
  if (!timestamp || !nonce || !signature || !serial) return fail('missing_headers', 'Wechatpay-Timestamp, -Nonce, -Signature and -Serial are required');
  if (signature.startsWith(PROBE_PREFIX)) return fail('probe', 'signature probe refused');
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp) * 1000) > SIGNATURE_WINDOW_MS)
    return fail('stale', `Wechatpay-Timestamp ${timestamp.slice(0, 20)} is not within 5 minutes of now`);
  const key = keys.key(serial, now);
  if (!key) return fail('unknown_serial', `no platform key with serial ${serial.slice(0, 64)}`);
  if (!rsaVerify(responseMessage(timestamp, nonce, body), signature, key)) return fail('bad_signature', 'Wechatpay-Signature does not verify');
  return { ok: true, serial };
}
