/**
 * Where the platform keys come from. Public-key mode: the configured key and its `PUB_KEY_ID_…`;
 * while the platform moves a merchant from certificates to the public key it signs answers and
 * notifications with either, so a serial that is not a `PUB_KEY_ID_…` is looked up among the
 * platform certificates, downloaded then (wechatpay-java's `AbstractVerifier` with both a public key
 * and a certificate provider, as `RSACombinedNotificationConfig` builds it; wechatpay-go's
 * `SHA256WithRSACombinedVerifier`). Certificate mode: `GET /v3/certificates`, decrypted with the
 * APIv3 key (which is what makes them trusted: wechatpay-go's `core/downloader` takes its first
 * download on that alone), its own answer verified with any platform key the kit holds (the public
 * key, the certificates downloaded before) or one it carries; fetched before the first use, again
 * every 12 hours, and at once when an answer or notification names a serial not held (at most once a
 * minute, so that forged serials cannot make the kit hammer the platform).
 */
import type { KeyObject } from 'node:crypto';
import { KitError } from '@kit/shared';
import { CertificatesError, decodeCertificates } from './certificates';
import { AeadError } from './aead';
import type { AnswerVerifier, V3Client } from './client';
import { V3KeyError } from './keys';
import { certificateKey, PlatformKeyring, type PlatformKey } from './platform-keys';
import { verifyPlatformSignature, type SignedHeaders, type VerifyResult } from './verify';

export const CERTIFICATE_REFRESH_MS = 12 * 3_600_000;
const UNKNOWN_SERIAL_REFRESH_MS = 60_000;

export interface PlatformKeySource extends AnswerVerifier {
  /** The key personal data is encrypted to, and its id for `Wechatpay-Serial`. */
  encryptionKey(): Promise<{ id: string; publicKey: KeyObject }>;
  /** The id every request names in `Wechatpay-Serial`: the public-key id, or the newest certificate's serial. */
  acceptSerial(): Promise<string | undefined>;
}

export class PublicKeySource implements PlatformKeySource {
  private readonly ring: PlatformKeyring;
  /** When the certificates last could not be had (a merchant who never had any: `/v3/certificates` answers 404). */
  private certificatesFailedAt?: number;

  constructor(
    private readonly id: string,
    private readonly publicKey: KeyObject,
    private readonly now: () => number,
    /** The platform certificates, for what the platform still signs with them during the switch. */
    private readonly certificates?: CertificateSource,
  ) {
    this.ring = PlatformKeyring.publicKeyMode(id, publicKey);
  }

  async verify(h: SignedHeaders, body: string): Promise<VerifyResult> {
    const own = verifyPlatformSignature(h, body, this.ring, this.now());
    // Only a serial that is not a public-key id can be a certificate's (and the checks before the
    // key lookup, headers, probe, timestamp, have passed: `serial` is there).
    if (own.ok || own.reason !== 'unknown_serial' || !this.certificates || h.serial!.startsWith('PUB_KEY_ID_')) return own;
    if (this.certificatesFailedAt !== undefined && this.now() - this.certificatesFailedAt < UNKNOWN_SERIAL_REFRESH_MS) return own;
    try {
      return await this.certificates.verify(h, body);
    } catch (e) {
      // The platform could not be reached: the message waits (a 503 for an answer, a 5xx to the
      // notification, which the platform sends again), rather than being refused for good.
      if (!(e instanceof KitError) || e.error === 'channel_unavailable') throw e;
      this.certificatesFailedAt = this.now();
      return { ok: false, reason: 'unknown_serial', message: `${own.message}, and the platform certificates could not be had: ${e.message}` };
    }
  }

  encryptionKey(): Promise<{ id: string; publicKey: KeyObject }> {
    return Promise.resolve({ id: this.id, publicKey: this.publicKey });
  }

  /** The public-key id on every request: during the switch, it asks for answers signed with the public key. */
  acceptSerial(): Promise<string> {
    return Promise.resolve(this.id);
  }
}

export class CertificateSource implements PlatformKeySource {
  readonly ring = new PlatformKeyring();
  private fetchedAt = 0;
  private lastUnknownRefresh = 0;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly client: () => V3Client,
    private readonly apiV3Key: string,
    private readonly now: () => number,
    /**
     * In public-key mode, the public key: the download names its id, like every other request, and
     * the platform may sign the list with it (the key that request named).
     */
    private readonly publicKey?: PlatformKey,
  ) {}

  async verify(h: SignedHeaders, body: string): Promise<VerifyResult> {
    // A list downloaded for this very message is not downloaded again for it.
    const downloaded = await this.fresh();
    let result = verifyPlatformSignature(h, body, this.ring, this.now());
    if (!result.ok && result.reason === 'unknown_serial' && !downloaded) {
      // A download under way (another message named the new serial just before) is waited for:
      // during a rotation, answers signed with the new certificate come together.
      const joining = this.inFlight !== null;
      if (!joining && this.now() - this.lastUnknownRefresh < UNKNOWN_SERIAL_REFRESH_MS) return result;
      if (!joining) this.lastUnknownRefresh = this.now();
      await this.refresh();
      result = verifyPlatformSignature(h, body, this.ring, this.now());
    }
    return result;
  }

  async encryptionKey(): Promise<{ id: string; publicKey: KeyObject }> {
    await this.fresh();
    const k = this.ring.encryptionKey(this.now());
    if (!k) throw new KitError('channel_unavailable', 'the payment platform listed no valid certificate');
    return { id: k.id, publicKey: k.publicKey };
  }

  /** The newest certificate's serial (wechatpay-go `SHA256WithRSAVerifier.GetSerial`). */
  async acceptSerial(): Promise<string | undefined> {
    await this.fresh();
    return this.ring.encryptionKey(this.now())?.id;
  }

  /** Fetched once before first use and again when 12 hours old; whether it was fetched now. */
  private async fresh(): Promise<boolean> {
    if (this.fetchedAt !== 0 && this.now() - this.fetchedAt < CERTIFICATE_REFRESH_MS) return false;
    await this.refresh();
    return true;
  }

  /** One download at a time; callers during it wait for it. */
  refresh(): Promise<void> {
    this.inFlight ??= this.download().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async download(): Promise<void> {
    // Sent as is (`send`), naming what every request names: the public-key id, or the certificate held if any.
    const serial = this.publicKey?.id ?? this.ring.encryptionKey(this.now())?.id;
    const answer = await this.client().send({ method: 'GET', path: '/v3/certificates', repeatable: true, ...(serial ? { platformSerial: serial } : {}) });
    if (answer.status !== 200)
      throw new KitError('channel_error', `GET /v3/certificates answered HTTP ${answer.status}${answer.requestId ? ` (Request-ID ${answer.requestId})` : ''}`);
    let certs;
    try {
      certs = decodeCertificates(answer.text, this.apiV3Key, this.now());
    } catch (e) {
      if (e instanceof CertificatesError || e instanceof AeadError || e instanceof V3KeyError)
        throw new KitError('channel_error', `platform certificates refused: ${e.message}`);
      throw e;
    }
    // An empty list replaces nothing held (wechatpay-go: "no certificate downloaded").
    if (!certs.length) throw new KitError('channel_error', 'platform certificates refused: the platform listed no valid certificate');
    // Signed by any key the kit holds or by one the list carries: a platform in the middle of the
    // switch signs it with the public key the request named, a rotating one perhaps with the
    // certificate held before. (What the answer carries is trusted only because it decrypted.)
    const signers = new PlatformKeyring([...(this.publicKey ? [this.publicKey] : []), ...this.ring.all(), ...certs.map(certificateKey)]);
    const verified = verifyPlatformSignature(answer.headers, answer.text, signers, this.now());
    if (!verified.ok) throw new KitError('channel_error', `platform certificates refused: ${verified.message}`);
    this.ring.replaceCertificates(certs);
    this.fetchedAt = this.now();
  }
}
