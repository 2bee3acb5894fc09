/**
 * Where the platform keys come from. Public-key mode: the configured key and its `PUB_KEY_ID_…`,
 * nothing to fetch. Certificate mode: `GET /v3/certificates`, decrypted with the APIv3 key (which
 * is what makes them trusted), its own answer verified with the certificates it carries; fetched
 * before the first use, again every 12 hours, and at once when an answer or notification names a
 * serial not held (at most once a minute, so that forged serials cannot make the kit hammer the
 * platform).
 */
import type { KeyObject } from 'node:crypto';
import { KitError } from '@kit/shared';
import { CertificatesError, decodeCertificates } from './certificates';
import { AeadError } from './aead';
import type { AnswerVerifier, V3Client } from './client';
import { V3KeyError } from './keys';
import { PlatformKeyring } from './platform-keys';
import { verifyPlatformSignature, type SignedHeaders, type VerifyResult } from './verify';

export const CERTIFICATE_REFRESH_MS = 12 * 3_600_000;
const UNKNOWN_SERIAL_REFRESH_MS = 60_000;

export interface PlatformKeySource extends AnswerVerifier {
  /** The key personal data is encrypted to, and its id for `Wechatpay-Serial`. */
  encryptionKey(): Promise<{ id: string; publicKey: KeyObject }>;
}

export class PublicKeySource implements PlatformKeySource {
  private readonly ring: PlatformKeyring;
  constructor(
    private readonly id: string,
    private readonly publicKey: KeyObject,
  ) {
    this.ring = PlatformKeyring.publicKeyMode(id, publicKey);
  }

  verify(h: SignedHeaders, body: string): Promise<VerifyResult> {
    return Promise.resolve(verifyPlatformSignature(h, body, this.ring));
  }

  encryptionKey(): Promise<{ id: string; publicKey: KeyObject }> {
    return Promise.resolve({ id: this.id, publicKey: this.publicKey });
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
    private readonly now: () => number = Date.now,
  ) {}

  async verify(h: SignedHeaders, body: string): Promise<VerifyResult> {
    await this.fresh();
    let result = verifyPlatformSignature(h, body, this.ring, this.now());
    if (!result.ok && result.reason === 'unknown_serial' && this.now() - this.lastUnknownRefresh >= UNKNOWN_SERIAL_REFRESH_MS) {
      this.lastUnknownRefresh = this.now();
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

  /** Fetched once before first use and again when 12 hours old. */
  private async fresh(): Promise<void> {
    if (this.fetchedAt === 0 || this.now() - this.fetchedAt >= CERTIFICATE_REFRESH_MS) await this.refresh();
  }

  /** One download at a time; callers during it wait for it. */
  refresh(): Promise<void> {
    this.inFlight ??= this.download().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async download(): Promise<void> {
    const answer = await this.client().send({ method: 'GET', path: '/v3/certificates', repeatable: true });
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
    const candidate = new PlatformKeyring();
    candidate.replaceCertificates(certs);
    const verified = verifyPlatformSignature(answer.headers, answer.text, candidate, this.now());
    if (!verified.ok) throw new KitError('channel_error', `platform certificates refused: ${verified.message}`);
    this.ring.replaceCertificates(certs);
    this.fetchedAt = this.now();
  }
}
