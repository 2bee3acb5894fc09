/**
 * Deduction codes (docs/chain.md): a compact server-signed token, the QR content a payer shows.
 *
 *   KP1.<base64url(JSON [tokenAppId, tokenId, userAppId, userId, maxUnits, uuid, issuedAt])>.<mac>
 *   mac = base64url(HMAC-SHA256(key, "KP1." + payload)[0..16)),  key = HKDF(master key, "deduction-code")
 *
 * Keyed by the master key so that every instance sharing KIT_MASTER_KEY reads every code. The age
 * and the spending of the uuid are checked when a chainPay item is sealed, not here.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

const PREFIX = 'KP1.';
const MAC_BYTES = 16;

export interface DeductionClaims {
  tokenAppId: string;
  tokenId: string;
  userAppId: string;
  userId: string;
  /** Largest deduction, in 1/100000 of a point. */
  maxUnits: number;
  uuid: string;
  /** Unix ms. */
  issuedAt: number;
}

export class DeductionCodes {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', masterKey, 'kit-deduction-code-v1', 'mac', 32));
  }

  private mac(signed: string): Buffer {
    return createHmac('sha256', this.key).update(signed).digest().subarray(0, MAC_BYTES);
  }

  mint(c: DeductionClaims): string {
    const payload = Buffer.from(JSON.stringify([c.tokenAppId, c.tokenId, c.userAppId, c.userId, c.maxUnits, c.uuid, c.issuedAt])).toString('base64url');
    const signed = PREFIX + payload;
    return `${signed}.${this.mac(signed).toString('base64url')}`;
  }

  /** The claims of an authentic code, or null for anything forged, damaged or not a code at all. */
  read(code: unknown): DeductionClaims | null {
    if (typeof code !== 'string' || !code.startsWith(PREFIX) || code.length > 2048) return null;
    const dot = code.lastIndexOf('.');
    if (dot <= PREFIX.length) return null;
    const signed = code.slice(0, dot);
    const given = Buffer.from(code.slice(dot + 1), 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(signed))) return null;
    try {
      const a = JSON.parse(Buffer.from(signed.slice(PREFIX.length), 'base64url').toString('utf8'));
      if (!Array.isArray(a) || a.length !== 7) return null;
      const [tokenAppId, tokenId, userAppId, userId, maxUnits, uuid, issuedAt] = a;
      if (![tokenAppId, tokenId, userAppId, userId, uuid].every((s) => typeof s === 'string')) return null;
      if (!Number.isSafeInteger(maxUnits) || !Number.isSafeInteger(issuedAt)) return null;
      return { tokenAppId, tokenId, userAppId, userId, maxUnits, uuid, issuedAt };
    } catch {
      return null;
    }
  }
}
