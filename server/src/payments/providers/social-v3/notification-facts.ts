/**
 * A v3 notification as the payment services read notifications: its signature verified through the
 * key source (certificate mode may fetch a new certificate first), its resource decrypted, then read
 * in the channel vocabulary: a payment (`TRANSACTION.SUCCESS`) as transaction fields, a refund
 * (`REFUND.SUCCESS`, `REFUND.ABNORMAL`, `REFUND.CLOSED`) as refund fields. Anything else is refused
 * and changes nothing; the platform is answered 204 to acknowledge, or 4xx/5xx with `refusal()`.
 */
import type { AnswerVerifier } from './client';
import { decodeNotification } from './notification';
import { refundFields, transactionFields, V3AnswerError } from './partner-api';
import type { SignedHeaders } from './verify';
import type { NotificationFacts } from '../protocol-v2/types';

// Defined with the channel types (they name it in `V3Side`), which import nothing of this file.
export type { NotificationFacts };

const EVENTS = { pay: /^TRANSACTION\.SUCCESS$/, refund: /^REFUND\.(SUCCESS|ABNORMAL|CLOSED)$/ };

export async function notificationFacts(
  kind: 'pay' | 'refund',
  headers: SignedHeaders,
  rawBody: string,
  keys: AnswerVerifier,
  apiV3Key: string,
): Promise<NotificationFacts> {
  const verified = await keys.verify(headers, rawBody);
  if (!verified.ok) return verified;
  const decoded = decodeNotification(rawBody, apiV3Key);
  if (!decoded.ok) return decoded;
  if (!EVENTS[kind].test(decoded.eventType))
    return { ok: false, reason: 'unexpected_event', message: `event ${decoded.eventType} is not a ${kind} notification` };
  try {
    const fields = kind === 'pay' ? transactionFields(decoded.resource) : refundFields(decoded.resource);
    return { ok: true, id: decoded.id, eventType: decoded.eventType, fields };
  } catch (e) {
    if (e instanceof V3AnswerError) return { ok: false, reason: 'malformed', message: e.message };
    throw e;
  }
}
