/**
 * A minimal self-signed X.509 certificate (SHA256-with-RSA, a common name, a validity, no
 * extensions), for the certificates the kit's tests give it (a merchant API certificate, a
 * platform's in certificate mode): Node can read and check certificates but not make them, and the
 * kit takes no dependency for this one structure. The sandbox makes its own, apart
 * (`sandbox/src/protocol/self-signed.ts`), development material included.
 */
import { sign, createPublicKey, type KeyObject } from 'node:crypto';

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), len(body.length), body]);
const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const nul = (): Buffer => Buffer.from([0x05, 0x00]);

function oid(text: string): Buffer {
  const arcs = text.split('.').map(Number);
  const out = [40 * arcs[0] + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A non-negative INTEGER from hex. */
function integerHex(hex: string): Buffer {
  let bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  while (bytes.length > 1 && bytes[0] === 0 && bytes[1] < 0x80) bytes = bytes.subarray(1);
  return tlv(0x02, bytes[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function time(ms: number): Buffer {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  const year = Number(iso.slice(0, 4));
  // RFC 5280: UTCTime through 2049, GeneralizedTime after.
  return year < 2050 ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, 'ascii')) : tlv(0x18, Buffer.from(`${digits}Z`, 'ascii'));
}

const name = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));

export interface SelfSignedOptions {
  commonName: string;
  /** Upper-case hex, as the platform writes serials. */
  serial: string;
  notBefore: number;
  notAfter: number;
}

/** PEM of a certificate for `privateKey`'s public key, signed by `privateKey` itself. */
export function selfSignedCertificate(privateKey: KeyObject, o: SelfSignedOptions): string {
  const algorithm = seq(oid('1.2.840.113549.1.1.11'), nul());
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const tbs = seq(
    tlv(0xa0, integerHex('02')), // version v3
    integerHex(o.serial),
    algorithm,
    name(o.commonName),
    seq(time(o.notBefore), time(o.notAfter)),
    name(o.commonName),
    spki,
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}
