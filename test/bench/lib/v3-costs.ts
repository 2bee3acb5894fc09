/**
 * What API v3 adds to each payment notification, measured on its own with the kit's own functions:
 * the RSA-SHA256 (PKCS#1 v1.5, 2048-bit) verification of `Wechatpay-Signature` by the platform
 * public key (verify.ts), and the AEAD_AES_256_GCM decryption of the `resource` under the APIv3 key
 * (aead.ts). Timed in the bench's own process (not the service's) on one notification the bench
 * sends, so the figure is the cryptography alone, without HTTP, JSON or the database.
 */
import { performance } from 'node:perf_hooks';
import { aeadDecrypt, type EncryptedResource } from '../../../server/src/payments/providers/social-v3/aead';
import { signedHeaders, verifyPlatformSignature } from '../../../server/src/payments/providers/social-v3/verify';
import { payNotification, platformKeyring, type ChannelOrder, type PlatformSide } from './notifications';

export interface V3Costs {
  /** Microseconds of one signature verification. */
  verifyUs: number;
  /** Microseconds of one resource decryption. */
  decryptUs: number;
  rounds: number;
}

/** Median of `batches` batches of `rounds / batches` calls each, in µs per call (a shared machine's pauses fall in a few batches only). */
function timed(rounds: number, call: () => void, batches = 10): number {
  const per = Math.max(1, Math.floor(rounds / batches));
  for (let i = 0; i < per; i++) call(); // warm-up
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < per; i++) call();
    times.push(((performance.now() - t0) * 1000) / per);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export function measureV3Costs(platform: PlatformSide, order: ChannelOrder, rounds = 2000): V3Costs {
  if (platform.protocol !== 'v3' || !platform.v3) throw new Error('the v3 costs need the v3 platform side');
  const n = payNotification(platform, order, 'costs');
  const keys = platformKeyring(platform.v3);
  const headers = signedHeaders((name) => n.headers[name.toLowerCase()]);
  const resource = (JSON.parse(n.body) as { resource: EncryptedResource }).resource;
  const apiV3Key = platform.v3.apiV3Key;
  // Checked once first: timing a refusal would measure nothing.
  const verified = verifyPlatformSignature(headers, n.body, keys, Date.now());
  if (!verified.ok) throw new Error(`the bench's own v3 notification does not verify: ${verified.message}`);
  JSON.parse(aeadDecrypt(resource, apiV3Key));
  return {
    verifyUs: timed(rounds, () => verifyPlatformSignature(headers, n.body, keys, Date.now())),
    decryptUs: timed(rounds, () => aeadDecrypt(resource, apiV3Key)),
    rounds,
  };
}
