/**
 * The platform's certificate as the sandbox makes one (the certificate it moves to in a rotation,
 * fault `v3Certificates: "rotated"`): a minimal self-signed X.509 v3 certificate by RFC 5280
 * (SHA256-with-RSA, a common name as issuer and subject, a validity, no extensions), DER-encoded
 * by X.690 here, apart from the kit's maker of development certificates, so that the kit's reader
 * of platform certificates (node's `X509Certificate`) is given one the kit did not make. Node can
 * read and check certificates but not make them.
 */
import { createPublicKey, sign, type KeyObject } from 'node:crypto';

/** A DER length: short form below 128, else the long form's byte count and bytes. */
function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), length(body.length), body]);
const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const NULL = Buffer.from([0x05, 0x00]);

/** An OBJECT IDENTIFIER: the first two arcs in one byte, the rest base 128 with continuation bits. */
function objectId(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out = [40 * arcs[0] + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A non-negative INTEGER from hex: leading zero bytes dropped, one added when the top bit is set. */
function integerOfHex(hex: string): Buffer {
  let bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  while (bytes.length > 1 && bytes[0] === 0 && bytes[1] < 0x80) bytes = bytes.subarray(1);
  return tlv(0x02, bytes[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, in whole seconds. */
function validityTime(ms: number): Buffer {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString();
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  return Number(iso.slice(0, 4)) < 2050 ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, 'ascii')) : tlv(0x18, Buffer.from(`${digits}Z`, 'ascii'));
}

/** A Name of one common name (2.5.4.3), UTF8String. */
const commonNameOf = (cn: string): Buffer => sequence(set(sequence(objectId('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));

export interface PlatformCertificateOptions {
  commonName: string;
  /** Upper-case hex, as the platform writes serials. */
  serial: string;
  notBefore: number;
  notAfter: number;
}

/** PEM of a certificate of `privateKey`'s public key, signed by `privateKey` itself. */
export function platformCertificate(privateKey: KeyObject, o: PlatformCertificateOptions): string {
  const sha256WithRsa = sequence(objectId('1.2.840.113549.1.1.11'), NULL);
  const tbs = sequence(
    tlv(0xa0, integerOfHex('02')), // [0] version: v3
    integerOfHex(o.serial),
    sha256WithRsa,
    commonNameOf(o.commonName),
    sequence(validityTime(o.notBefore), validityTime(o.notAfter)),
    commonNameOf(o.commonName),
    createPublicKey(privateKey).export({ format: 'der', type: 'spki' }),
  );
  const der = sequence(tbs, sha256WithRsa, tlv(0x03, Buffer.concat([Buffer.from([0]), sign('sha256', tbs, privateKey)])));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}
