/**
 * Donation contents on the chain (docs/chain.md): AES-256-GCM under a key derived from the AppSecret
 * with HKDF-SHA256, so that only the AppSecret decrypts them.
 *
 * The encryption is deterministic: the 96-bit IV is HMAC-SHA256(ivKey, plaintext) truncated (a
 * synthetic IV). Identical contents of one app give an identical ciphertext and so an identical
 * on-chain id, which is the specification's duplicate protection; different contents get
 * different IVs, and equal IVs only ever encrypt equal plaintexts. What this reveals is equality of
 * two records of one app, nothing else.
 *
 *   encKey = HKDF-SHA256(ikm = AppSecret UTF-8, salt = "kit-donation-v1", info = "enc", 32 bytes)
 *   ivKey  = HKDF-SHA256(same, info = "iv", 32 bytes)
 *   iv     = HMAC-SHA256(ivKey, plaintext)[0..12)
 *   text   = "dn1." + base64url(iv || ciphertext || tag)
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { canonicalJson } from './merkle';

export const DONATION_CIPHER_PREFIX = 'dn1.';
const SALT = 'kit-donation-v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class DonationDecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DonationDecryptError';
  }
}

export interface DonationKeys {
  encKey: Buffer;
  ivKey: Buffer;
}

export function deriveDonationKeys(appSecret: string): DonationKeys {
  const ikm = Buffer.from(appSecret, 'utf8');
  return {
    encKey: Buffer.from(hkdfSync('sha256', ikm, SALT, 'enc', 32)),
    ivKey: Buffer.from(hkdfSync('sha256', ikm, SALT, 'iv', 32)),
  };
}

const keysOf = (secretOrKeys: string | DonationKeys) => (typeof secretOrKeys === 'string' ? deriveDonationKeys(secretOrKeys) : secretOrKeys);

/** Encrypts a UTF-8 text. Same secret and same text → same ciphertext. */
export function encryptDonation(secretOrKeys: string | DonationKeys, plaintext: string): string {
  const { encKey, ivKey } = keysOf(secretOrKeys);
  const data = Buffer.from(plaintext, 'utf8');
  const iv = createHmac('sha256', ivKey).update(data).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', encKey, iv);
  const ct = Buffer.concat([cipher.update(data), cipher.final()]);
  return DONATION_CIPHER_PREFIX + Buffer.concat([iv, ct, cipher.getAuthTag()]).toString('base64url');
}

/** Decrypts what `encryptDonation` produced; throws DonationDecryptError for a wrong secret or damaged text. */
export function decryptDonation(secretOrKeys: string | DonationKeys, ciphertext: string): string {
  if (!ciphertext.startsWith(DONATION_CIPHER_PREFIX)) throw new DonationDecryptError(`ciphertext must start with "${DONATION_CIPHER_PREFIX}"`);
  const raw = Buffer.from(ciphertext.slice(DONATION_CIPHER_PREFIX.length), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new DonationDecryptError('ciphertext is too short');
  const { encKey } = keysOf(secretOrKeys);
  const decipher = createDecipheriv('aes-256-gcm', encKey, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new DonationDecryptError('wrong AppSecret or damaged ciphertext');
  }
}

/** Encrypts a donation record (its canonical JSON). */
export const encryptDonationContent = (secretOrKeys: string | DonationKeys, record: unknown): string => encryptDonation(secretOrKeys, canonicalJson(record));

/** Decrypts and parses a donation record. */
export function decryptDonationContent<T = Record<string, unknown>>(secretOrKeys: string | DonationKeys, ciphertext: string): T {
  return JSON.parse(decryptDonation(secretOrKeys, ciphertext)) as T;
}
