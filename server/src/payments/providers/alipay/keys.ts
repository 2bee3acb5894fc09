/**
 * Key material of the Alipay settings. Each is PEM text or the path of a PEM file; a private or
 * public key may also be given as the bare base64 Alipay's key tool prints (no BEGIN/END lines).
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class AlipayKeyError extends Error {}

/** Bare base64 of a key: long, and nothing but base64 characters. */
const BARE_BASE64 = /^[A-Za-z0-9+/=\s]{200,}$/;

/** The text a setting holds: PEM or bare base64 as given, otherwise the content of the file it names. */
export function readKeyText(value: string): string {
  const text = value.trim();
  if (text.startsWith('-----BEGIN') || BARE_BASE64.test(text)) return text;
  try {
    return readFileSync(text, 'utf8').trim();
  } catch (e) {
    throw new AlipayKeyError(`neither PEM text nor a readable PEM file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function rsaOnly(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'rsa') throw new AlipayKeyError(`an RSA key is expected (RSA2), this is ${key.asymmetricKeyType}`);
  return key;
}

/** The application private key: PKCS#8 or PKCS#1, PEM or bare base64. */
export function loadPrivateKey(value: string): KeyObject {
  const text = readKeyText(value);
  try {
    if (text.startsWith('-----BEGIN')) return rsaOnly(createPrivateKey(text));
    const der = Buffer.from(text.replace(/\s+/g, ''), 'base64');
    try {
      return rsaOnly(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
    } catch {
      return rsaOnly(createPrivateKey({ key: der, format: 'der', type: 'pkcs1' }));
    }
  } catch (e) {
    if (e instanceof AlipayKeyError) throw e;
    throw new AlipayKeyError(`not an RSA private key: ${(e as Error).message}`);
  }
}

/** Alipay's public key (public-key mode): SPKI PEM or bare base64. */
export function loadPublicKey(value: string): KeyObject {
  const text = readKeyText(value);
  try {
    if (text.startsWith('-----BEGIN')) return rsaOnly(createPublicKey(text));
    return rsaOnly(createPublicKey({ key: Buffer.from(text.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' }));
  } catch (e) {
    if (e instanceof AlipayKeyError) throw e;
    throw new AlipayKeyError(`not an RSA public key: ${(e as Error).message}`);
  }
}

/** PEM text of a certificate file (certificate mode), or the file it names. */
export function readCertificateText(value: string): string {
  const text = value.trim();
  if (text.startsWith('-----BEGIN')) return text;
  try {
    return readFileSync(text, 'utf8').trim();
  } catch (e) {
    throw new AlipayKeyError(`neither PEM certificate text nor a readable certificate file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** The RSA public key of the first certificate of PEM text. */
export function certificateKey(pem: string): KeyObject {
  try {
    return rsaOnly(new X509Certificate(pem).publicKey);
  } catch (e) {
    if (e instanceof AlipayKeyError) throw e;
    throw new AlipayKeyError(`not an X.509 certificate: ${(e as Error).message}`);
  }
}

export const samePublicKey = (a: KeyObject, b: KeyObject): boolean =>
  a.export({ format: 'der', type: 'spki' }).equals(b.export({ format: 'der', type: 'spki' }));
