/**
 * API v3 signatures: SHA256-with-RSA (PKCS#1 v1.5), base64. Requests are signed over
 * `METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n` and carry it in `Authorization`; the platform signs
 * answers and notifications over `TIMESTAMP\nNONCE\nBODY\n`.
 */
import { randomBytes, sign, verify, type KeyObject } from 'node:crypto';

export const AUTH_SCHEMA = 'WECHATPAY2-SHA256-RSA2048';

/** Each line ends with `\n`, the last one too. */
export const lines = (...parts: (string | number)[]): string => parts.map((p) => `${p}\n`).join('');

export const requestMessage = (method: string, pathAndQuery: string, timestamp: string | number, nonce: string, body: string): string =>
  lines(method.toUpperCase(), pathAndQuery, timestamp, nonce, body);

export const responseMessage = (timestamp: string | number, nonce: string, body: string): string => lines(timestamp, nonce, body);

export function rsaSign(message: string, privateKey: KeyObject): string {
  return sign('sha256', Buffer.from(message, 'utf8'), privateKey).toString('base64');
}

/** False (never a throw) for a signature that is not base64 or does not verify. */
export function rsaVerify(message: string, signature: string, publicKey: KeyObject): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return verify('sha256', Buffer.from(message, 'utf8'), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** 32 characters of [0-9A-Z], as the platform's own nonces look. */
export function newNonce(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return Array.from(randomBytes(32), (b) => alphabet[b % 36]).join('');
}

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

export interface MerchantSigner {
  mchid: string;
  /** Serial of the merchant API certificate, which tells the platform which key signed. */
  serial: string;
  privateKey: KeyObject;
}

export interface AuthorizationParts {
  mchid: string;
  serial_no: string;
  timestamp: string;
  nonce_str: string;
  signature: string;
}

/** The `Authorization` header of one request; `pathAndQuery` is exactly what goes on the wire after the host. */
export function authorization(
  signer: MerchantSigner,
  method: string,
  pathAndQuery: string,
  body: string,
  timestamp: number,
  nonce: string = newNonce(),
): string {
  const signature = rsaSign(requestMessage(method, pathAndQuery, timestamp, nonce, body), signer.privateKey);
  return `${AUTH_SCHEMA} mchid="${signer.mchid}",nonce_str="${nonce}",signature="${signature}",timestamp="${timestamp}",serial_no="${signer.serial}"`;
}

/** The parts of an `Authorization` header (in any order), or null when it is not one. */
export function parseAuthorization(header: string | undefined): AuthorizationParts | null {
  if (!header?.startsWith(`${AUTH_SCHEMA} `)) return null;
  const parts: Record<string, string> = {};
  for (const m of header.slice(AUTH_SCHEMA.length + 1).matchAll(/\s*([a-z_]+)="([^"]*)"\s*(?:,|$)/g)) parts[m[1]] = m[2];
  const { mchid, serial_no, timestamp, nonce_str, signature } = parts;
  if (!mchid || !serial_no || !/^\d+$/.test(timestamp ?? '') || !nonce_str || !signature) return null;
  return { mchid, serial_no, timestamp, nonce_str, signature };
}

/** Whether a request's `Authorization` matches its method, target and body under the merchant's public key. */
export function verifyAuthorization(parts: AuthorizationParts, method: string, pathAndQuery: string, body: string, publicKey: KeyObject): boolean {
  return rsaVerify(requestMessage(method, pathAndQuery, parts.timestamp, parts.nonce_str, body), parts.signature, publicKey);
}
