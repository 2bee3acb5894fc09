/**
 * The sandbox's API v3 notifications: the envelope (`id`, `create_time`, `event_type`,
 * `resource_type: encrypt-resource`, `summary`) around the order or refund, encrypted with
 * AEAD_AES_256_GCM under the APIv3 key (a fresh 12-character nonce, the original type as associated
 * data). The body is made once and sent as it is each time, duplicates too, with the same `id`; the
 * signature headers are made at each sending (sandbox-notifier.ts), so a late retry is not stale.
 */
import type { Clock } from '@kit/shared/clock';
import { randomUUID } from 'node:crypto';
import { rfc3339China } from '../protocol/china-time';
import { AEAD_AES_256_GCM, aeadSeal, platformHeaders, platformNonce, SIGNATURE_PROBE_PREFIX } from '../protocol/v3-rules';
import type { SandboxFaults } from '../sandbox-faults';
import type { V3NotificationSigner } from '../sandbox-notifier';
import type { V3Notices } from '../sandbox-platform';
import type { SandboxOrder, SandboxRefund } from '../sandbox-store';
import { platformSignature } from './sandbox-v3-http';
import { signingUnder, type SandboxV3Keys } from './sandbox-v3-keys';
import { refundResourceOf, transactionOf } from './sandbox-v3-resources';

/** The notification body; only the APIv3 key is needed (the bench builds the platform's notifications with it too). */
export function envelope(
  keys: Pick<SandboxV3Keys, 'apiV3Key'>,
  eventType: string,
  summary: string,
  originalType: string,
  resource: object,
  now: number,
): string {
  const nonce = platformNonce(12);
  return JSON.stringify({
    id: randomUUID(),
    create_time: rfc3339China(now),
    resource_type: 'encrypt-resource',
    event_type: eventType,
    summary,
    resource: {
      original_type: originalType,
      algorithm: AEAD_AES_256_GCM,
      ciphertext: aeadSeal(JSON.stringify(resource), keys.apiV3Key, nonce, originalType),
      associated_data: originalType,
      nonce,
    },
  });
}

export function v3Notices(keys: SandboxV3Keys, clock: Clock): V3Notices {
  return {
    pay: (o: SandboxOrder) => envelope(keys, 'TRANSACTION.SUCCESS', '支付成功', 'transaction', transactionOf(o, 'SUCCESS'), clock.now()),
    refund: (o: SandboxOrder, r: SandboxRefund) => envelope(keys, 'REFUND.SUCCESS', '退款成功', 'refund', refundResourceOf(o, r), r.success_at ?? r.created_at),
  };
}

/** Signs each sending; a probe carries `WECHATPAY/SIGNTEST/` and random bytes instead of a signature. */
export function v3NotificationSigner(keys: SandboxV3Keys, faults: SandboxFaults, clock: Clock): V3NotificationSigner {
  return {
    headers(body: string, probe: boolean) {
      const signing = signingUnder(keys, faults.current, keys.switching.notifications);
      if (!probe) return platformSignature(signing, body, clock.now());
      // A probe's tail is not a signature of this body: what a service that checks nothing would take.
      const signed = platformHeaders(`${body}probe`, { privateKey: keys.privateKey, serial: signing.serial }, clock.now());
      return { ...signed, 'wechatpay-signature': `${SIGNATURE_PROBE_PREFIX}${signed['wechatpay-signature']}` };
    },
    probeRate: () => faults.current.v3SignProbes ?? 0,
  };
}
