/**
 * The platform keys answers and notifications are verified with, by the id `Wechatpay-Serial`
 * names: one public key and its `PUB_KEY_ID_…` (public-key mode), or the platform certificates
 * downloaded from `/v3/certificates` (certificate mode; several during a rotation). A key ring may
 * hold both while a merchant moves from certificates to the public key.
 */
import type { KeyObject } from 'node:crypto';
import { normalSerial, type CertificateInfo } from './keys';

export interface PlatformKey {
  id: string;
  publicKey: KeyObject;
  /** Certificates expire; a public key has no end. */
  notAfter?: number;
}

/** A platform certificate as a key of the ring, under its serial, until it expires. */
export function certificateKey(c: CertificateInfo): PlatformKey {
  return { id: c.serial, publicKey: c.publicKey, notAfter: c.notAfter };
}

export class PlatformKeyring {
  private readonly keys = new Map<string, PlatformKey>();

  constructor(keys: PlatformKey[] = []) {
    for (const k of keys) this.add(k);
  }

  static publicKeyMode(id: string, publicKey: KeyObject): PlatformKeyring {
    return new PlatformKeyring([{ id, publicKey }]);
  }

  add(k: PlatformKey): void {
    this.keys.set(normalSerial(k.id), k);
  }

  /** Certificate mode: the downloaded set replaces the certificates held, keeping a public key if any. */
  replaceCertificates(certs: CertificateInfo[]): void {
    for (const [id, k] of this.keys) if (k.notAfter !== undefined) this.keys.delete(id);
    for (const c of certs) this.add(certificateKey(c));
  }

  /** Every key held, expired certificates included (`key` refuses those). */
  all(): PlatformKey[] {
    return [...this.keys.values()];
  }

  /** The key with this id, unless it is an expired certificate. */
  key(id: string, now: number): KeyObject | undefined {
    const k = this.keys.get(normalSerial(id));
    return k && (k.notAfter === undefined || k.notAfter > now) ? k.publicKey : undefined;
  }

  /**
   * The key requests should encrypt personal names to, and its id (the `Wechatpay-Serial` request
   * header): the public key, or the certificate that expires last.
   */
  encryptionKey(now: number): PlatformKey | undefined {
    let best: PlatformKey | undefined;
    for (const k of this.keys.values()) {
      if (k.notAfter !== undefined && k.notAfter <= now) continue;
      if (!best || (best.notAfter !== undefined && (k.notAfter === undefined || k.notAfter > best.notAfter))) best = k;
    }
    return best;
  }

  ids(): string[] {
    return [...this.keys.keys()];
  }
}
