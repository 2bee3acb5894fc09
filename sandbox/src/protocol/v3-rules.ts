/**
 * The social platform's API v3 rules as its documentation publishes them, written with node:crypto
 * for the sandbox's side of the wire and apart from the kit's own code, so that a mistake in the
 * kit's signing shows as a refusal here instead of being shared (`v3-rules.test.ts` checks each
 * rule against the field's own wechatpay-axios-plugin):
 * - a request carries `Authorization: WECHATPAY2-SHA256-RSA2048 mchid="…",nonce_str="…",
 *   signature="…",timestamp="…",serial_no="…"`, the signature SHA256withRSA (PKCS#1 v1.5, base64)
 *   over `METHOD\nURL\nTIMESTAMP\nNONCE\nBODY\n` under the merchant's API key;
 * - the platform signs each answer and notification the same way over `TIMESTAMP\nNONCE\nBODY\n`
 *   and sends it in `Wechatpay-Timestamp`, `-Nonce`, `-Signature`, `-Serial`;
 * - notification resources and downloaded certificates are AEAD_AES_256_GCM under the APIv3 key
 *   (its 32 characters are the key; ciphertext and 16-byte tag, base64; nonce and associated data
 *   plain text);
 * - personal data in requests is RSA-OAEP (SHA-1, MGF1 SHA-1) to the platform's key.
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createSign,
  createVerify,
  privateDecrypt,
  randomBytes,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { rfc3339China } from './china-time';

export const AUTHORIZATION_SCHEMA = 'WECHATPAY2-SHA256-RSA2048';
export const AEAD_AES_256_GCM = 'AEAD_AES_256_GCM';
/** How far a request's timestamp may stand from the platform's clock. */
export const TIMESTAMP_WINDOW_MS = 5 * 60_000;
/** A notification whose signature starts so is the platform asking whether signatures are checked. */
export const SIGNATURE_PROBE_PREFIX = 'WECHATPAY/SIGNTEST/';

/** What a v3 signature covers: each part on a line of its own, the last ended too. */
export const signedText = (...parts: (string | number)[]): string => parts.map((p) => `${p}\n`).join('');

export const sha256WithRsa = (text: string, privateKey: KeyObject): string => createSign('RSA-SHA256').update(text, 'utf8').sign(privateKey, 'base64');

export function sha256WithRsaVerifies(text: string, signature: string, publicKey: KeyObject): boolean {
  try {
    return createVerify('RSA-SHA256').update(text, 'utf8').verify(publicKey, signature, 'base64');
  } catch {
    return false;
  }
}

/** The platform's nonce: 32 characters of digits and capitals. */
export function platformNonce(length = 32): string {
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return [...randomBytes(length)].map((b) => digits[b % digits.length]).join('');
}

export interface RequestAuthorization {
  mchid: string;
  serial_no: string;
  timestamp: string;
  nonce_str: string;
  signature: string;
}

/** The five fields of an `Authorization` header (in any order), or null when it is not one. */
export function readAuthorization(header: string | undefined): RequestAuthorization | null {
  if (!header?.startsWith(`${AUTHORIZATION_SCHEMA} `)) return null;
  const fields = new Map<string, string>();
  for (const item of header.slice(AUTHORIZATION_SCHEMA.length + 1).split(',')) {
    const m = /^\s*(\w+)="([^"]*)"\s*$/.exec(item);
    if (!m) return null;
    fields.set(m[1], m[2]);
  }
  const get = (k: string) => fields.get(k) ?? '';
  const auth = { mchid: get('mchid'), serial_no: get('serial_no'), timestamp: get('timestamp'), nonce_str: get('nonce_str'), signature: get('signature') };
  return Object.values(auth).every(Boolean) && /^\d+$/.test(auth.timestamp) ? auth : null;
}

/** Whether the request (method, the URL's path and query as sent, body) is what the merchant's key signed. */
export const requestVerifies = (auth: RequestAuthorization, method: string, url: string, body: string, merchantKey: KeyObject): boolean =>
  sha256WithRsaVerifies(signedText(method.toUpperCase(), url, auth.timestamp, auth.nonce_str, body), auth.signature, merchantKey);

/** The four headers the platform signs an answer or a notification with. */
export function platformHeaders(body: string, signer: { privateKey: KeyObject; serial: string }, now: number): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const nonce = platformNonce();
  return {
    'wechatpay-timestamp': timestamp,
    'wechatpay-nonce': nonce,
    'wechatpay-signature': sha256WithRsa(signedText(timestamp, nonce, body), signer.privateKey),
    'wechatpay-serial': signer.serial,
  };
}

function aesKey(apiV3Key: string): Buffer {
  const key = Buffer.from(apiV3Key, 'utf8');
  if (key.length !== 32) throw new Error(`an APIv3 key is 32 bytes, this one ${key.length}`);
  return key;
}

/** AEAD_AES_256_GCM: base64 of the ciphertext followed by its 16-byte tag. */
export function aeadSeal(plaintext: string, apiV3Key: string, nonce: string, associatedData: string): string {
  const cipher = createCipheriv('aes-256-gcm', aesKey(apiV3Key), Buffer.from(nonce, 'utf8'));
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  return Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64');
}

/** The opening of `aeadSeal`; throws when the text was not sealed so. */
export function aeadOpen(ciphertext: string, apiV3Key: string, nonce: string, associatedData: string): string {
  const data = Buffer.from(ciphertext, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', aesKey(apiV3Key), Buffer.from(nonce, 'utf8'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
}

/** Personal data the merchant encrypted to the platform's key (RSA-OAEP, SHA-1). */
export const oaepOpen = (ciphertext: string, privateKey: KeyObject): string =>
  privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, Buffer.from(ciphertext, 'base64')).toString('utf8');

/** A certificate serial as the platform writes it: upper-case hex without leading zeros (a public-key id stays as written). */
export const serialOf = (serial: string): string => (/^[0-9A-Fa-f]+$/.test(serial) ? serial.toUpperCase().replace(/^0+(?=.)/, '') : serial);

/** One entry of `GET /v3/certificates`: the certificate sealed under the APIv3 key, with its serial and validity. */
export function certificateEntry(pem: string, apiV3Key: string, nonce: string): object {
  const cert = new X509Certificate(pem);
  return {
    serial_no: serialOf(cert.serialNumber),
    effective_time: rfc3339China(Date.parse(cert.validFrom)),
    expire_time: rfc3339China(Date.parse(cert.validTo)),
    encrypt_certificate: { algorithm: AEAD_AES_256_GCM, nonce, associated_data: 'certificate', ciphertext: aeadSeal(pem, apiV3Key, nonce, 'certificate') },
  };
}
