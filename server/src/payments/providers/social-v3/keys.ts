/**
 * API v3 key material: the merchant's API private key (signs requests and payer arguments), the
 * platform's public key or certificates (verify answers and notifications, encrypt personal names)
 * and the APIv3 key (decrypts notification resources and downloaded certificates). Settings give
 * each as PEM text or as the path of a PEM file.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class V3KeyError extends Error {}

/** PEM text as given, or read from the file the value names. */
export function readPem(value: string): string {
  const text = value.trim();
  if (text.startsWith('-----BEGIN')) return text;
  try {
    return readFileSync(text, 'utf8').trim();
  } catch (e) {
    throw new V3KeyError(`neither PEM text nor a readable PEM file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function rsaOnly(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'rsa') throw new V3KeyError(`an RSA key is expected, this is ${key.asymmetricKeyType}`);
  return key;
}

/** The merchant API private key (`apiclient_key.pem`, PKCS#8 or PKCS#1). */
export function loadPrivateKey(value: string): KeyObject {
  try {
    return rsaOnly(createPrivateKey(readPem(value)));
  } catch (e) {
    if (e instanceof V3KeyError) throw e;
    throw new V3KeyError(`not an RSA private key: ${(e as Error).message}`);
  }
}

/** A platform public key (`pub_key.pem`), or the public key of a certificate. */
export function loadPublicKey(value: string): KeyObject {
  const pem = readPem(value);
  try {
    return rsaOnly(pem.includes('CERTIFICATE') ? new X509Certificate(pem).publicKey : createPublicKey(pem));
  } catch (e) {
    if (e instanceof V3KeyError) throw e;
    throw new V3KeyError(`not an RSA public key or certificate: ${(e as Error).message}`);
  }
}

export interface CertificateInfo {
  /** Upper-case hex, as the platform writes it in `serial_no` and `Wechatpay-Serial`. */
  serial: string;
  publicKey: KeyObject;
  notBefore: number;
  notAfter: number;
}

export function certificateInfo(pem: string): CertificateInfo {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch (e) {
    throw new V3KeyError(`not an X.509 certificate: ${(e as Error).message}`);
  }
  return {
    serial: normalSerial(cert.serialNumber),
    publicKey: rsaOnly(cert.publicKey),
    notBefore: Date.parse(cert.validFrom),
    notAfter: Date.parse(cert.validTo),
  };
}

/** Serials compare as upper-case hex without leading zeros; public-key ids (`PUB_KEY_ID_…`) as written. */
export function normalSerial(serial: string): string {
  return /^[0-9A-Fa-f]+$/.test(serial) ? serial.toUpperCase().replace(/^0+(?=.)/, '') : serial;
}
