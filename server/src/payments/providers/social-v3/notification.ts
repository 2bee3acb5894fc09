/**
 * A v3 notification: verified headers over the raw body, then the JSON envelope, then its
 * `resource` decrypted under the APIv3 key. The answer to the platform is 204 to acknowledge, or a
 * 4xx/5xx with `{"code":"FAIL","message":…}` to refuse (the platform sends it again later).
 */
import { z } from 'zod';
import { aeadDecrypt, AeadError } from './aead';
import type { PlatformKeyring } from './platform-keys';
import { verifyPlatformSignature, type SignedHeaders, type VerifyFailure } from './verify';

const envelope = z.object({
  id: z.string().min(1),
  create_time: z.string(),
  event_type: z.string().min(1),
  resource_type: z.literal('encrypt-resource'),
  summary: z.string().optional(),
  resource: z.object({
    original_type: z.string().optional(),
    algorithm: z.string(),
    ciphertext: z.string(),
    associated_data: z.string().optional(),
    nonce: z.string(),
  }),
});

export type NotificationEnvelope = z.infer<typeof envelope>;

export type OpenedNotification =
  | { ok: true; id: string; eventType: string; resource: Record<string, unknown>; serial: string }
  | { ok: false; reason: VerifyFailure | 'malformed' | 'undecryptable'; message: string };

export type DecodedNotification =
  { ok: true; id: string; eventType: string; resource: Record<string, unknown> } | { ok: false; reason: 'malformed' | 'undecryptable'; message: string };

/** Verified, then decoded: for a key ring at hand (the key sources verify on their own, then call `decodeNotification`). */
export function openNotification(headers: SignedHeaders, rawBody: string, keys: PlatformKeyring, apiV3Key: string, now: number): OpenedNotification {
  const verified = verifyPlatformSignature(headers, rawBody, keys, now);
  if (!verified.ok) return verified;
  const decoded = decodeNotification(rawBody, apiV3Key);
  return decoded.ok ? { ...decoded, serial: verified.serial } : decoded;
}

/** The envelope and its decrypted resource; only for a body whose signature was verified. */
export function decodeNotification(rawBody: string, apiV3Key: string): DecodedNotification {
  let n: NotificationEnvelope;
  try {
    n = envelope.parse(JSON.parse(rawBody));
  } catch {
    return { ok: false, reason: 'malformed', message: 'not a notification envelope' };
  }
  let plain: string;
  try {
    plain = aeadDecrypt(n.resource, apiV3Key);
  } catch (e) {
    return { ok: false, reason: 'undecryptable', message: e instanceof AeadError ? e.message : 'resource does not decrypt' };
  }
  let resource: unknown;
  try {
    resource = JSON.parse(plain);
  } catch {
    return { ok: false, reason: 'malformed', message: 'the decrypted resource is not JSON' };
  }
  if (!resource || typeof resource !== 'object' || Array.isArray(resource))
    return { ok: false, reason: 'malformed', message: 'the decrypted resource is not an object' };
  return { ok: true, id: n.id, eventType: n.event_type, resource: resource as Record<string, unknown> };
}

/** Body of a refusal. */
export const refusal = (message: string): { code: 'FAIL'; message: string } => ({ code: 'FAIL', message });
