/**
 * A points session is stateless on the server: its fields, including the 4.13 `uuid` generated
 * here, travel inside a handle sealed with an HMAC keyed by the owning app's secret. Any instance
 * can open it, the display cannot alter the uuid or the limits, and nothing is stored.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PosPointsSession } from '@kit/shared/api/pos';

/** What a points handle seals: the session the display sees (less the handle itself) and its sub-merchant. */
export type PointsHandleFields = Omit<PosPointsSession, 'handle'> & {
  /** Sub-merchant the session belongs to. */
  merchantId: string;
};

const LABEL = 'kit-pos-points-session-v1\n';

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(LABEL).update(payload).digest();
}

export function sealHandle(fields: PointsHandleFields, secret: string): string {
  const payload = Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The fields of a handle sealed with `secret`, or null when it is malformed, forged or expired. */
export function openHandle(handle: string, secret: string, now: number): PointsHandleFields | null {
  const dot = handle.indexOf('.');
  if (dot <= 0) return null;
  const payload = handle.slice(0, dot);
  const given = Buffer.from(handle.slice(dot + 1), 'base64url');
  const expected = mac(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let fields: PointsHandleFields;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as PointsHandleFields;
  } catch {
    return null;
  }
  if (!fields || typeof fields !== 'object' || typeof fields.expiresAt !== 'number' || fields.expiresAt <= now) return null;
  return fields;
}
