/**
 * Certificate mode's serial names (`app_cert_sn`, `alipay_cert_sn`, `alipay_root_cert_sn`) as Alipay
 * defines them in its SDKs: MD5 (lower-case hex) of the issuer's distinguished name as Java writes
 * it (RFC 2253: the RDNs last to first, `CN=…,OU=…,O=…,C=…`) followed by the serial number in
 * decimal. The root's is the names of those certificates of the root file (a chain of PEM blocks)
 * that are signed with RSA (signature algorithm OID under 1.2.840.113549.1.1, e.g. SHA256withRSA),
 * joined with `_`: Alipay's root file also holds an SM2 root, which is left out.
 *
 * Node reads certificates but does not expose the issuer's RDNs in order nor the signature
 * algorithm, so the few DER structures needed are read here.
 */
import { createHash, X509Certificate } from 'node:crypto';

export class CertificateError extends Error {}

interface Node {
  tag: number;
  /** The whole TLV. */
  start: number;
  /** The contents. */
  body: Buffer;
  end: number;
}

function read(buf: Buffer, at: number): Node {
  if (at + 2 > buf.length) throw new CertificateError('truncated DER');
  const tag = buf[at];
  let len = buf[at + 1];
  let off = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || off + n > buf.length) throw new CertificateError('unsupported DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[off + i];
    off += n;
  }
  if (off + len > buf.length) throw new CertificateError('truncated DER');
  return { tag, start: at, body: buf.subarray(off, off + len), end: off + len };
}

function children(node: Node): Node[] {
  const out: Node[] = [];
  for (let at = 0; at < node.body.length;) {
    const c = read(node.body, at);
    out.push(c);
    at = c.end;
  }
  return out;
}

function oidText(body: Buffer): string {
  const arcs: number[] = [];
  let v = 0;
  for (const b of body) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(v);
      v = 0;
    }
  }
  const first = arcs.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}

/** RFC 2253's keywords, the ones Java's `X500Principal.getName()` writes by name. */
const KEYWORDS: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
};

function stringValue(node: Node): string {
  switch (node.tag) {
    case 0x1e: {
      // BMPString: UTF-16 big-endian.
      const swapped = Buffer.from(node.body);
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    default:
      // UTF8String, PrintableString, IA5String, TeletexString (as Latin-1 is rare in practice).
      return node.tag === 0x14 ? node.body.toString('latin1') : node.body.toString('utf8');
  }
}

/** RFC 2253 escaping of an attribute value, as Java writes it. */
function escapeValue(v: string): string {
  let s = v.replace(/[,+"\\<>;]/g, (c) => `\\${c}`);
  if (s.startsWith('#') || s.startsWith(' ')) s = `\\${s}`;
  if (s.endsWith(' ') && s.length > 1) s = `${s.slice(0, -1)}\\ `;
  return s;
}

function distinguishedName(name: Node): string {
  const rdns = children(name).map((set) =>
    children(set)
      .map((atv) => {
        const [type, value] = children(atv);
        const oid = oidText(type.body);
        const keyword = KEYWORDS[oid];
        // Types without an RFC 2253 keyword are written as the OID and the value's DER in hex.
        return keyword ? `${keyword}=${escapeValue(stringValue(value))}` : `${oid}=#${atv.body.subarray(value.start, value.end).toString('hex')}`;
      })
      .join('+'),
  );
  return rdns.reverse().join(',');
}

interface CertFacts {
  issuer: string;
  serialDecimal: string;
  signatureOid: string;
}

function certFacts(der: Buffer): CertFacts {
  const cert = read(der, 0);
  const [tbs, sigAlg] = children(cert);
  if (!tbs || !sigAlg) throw new CertificateError('not an X.509 certificate');
  const fields = children(tbs);
  // tbsCertificate: [0] version (optional), serialNumber, signature, issuer, …
  const i = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serial = fields[i];
  const issuer = fields[i + 2];
  if (serial?.tag !== 0x02 || issuer?.tag !== 0x30) throw new CertificateError('not an X.509 certificate');
  const sigOid = children(sigAlg)[0];
  return {
    issuer: distinguishedName(issuer),
    serialDecimal: BigInt(`0x${serial.body.toString('hex') || '0'}`).toString(10),
    signatureOid: oidText(sigOid.body),
  };
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** The DER of every certificate in PEM text, in order. */
export function pemCertificates(pem: string): Buffer[] {
  const out = [...pem.matchAll(PEM_BLOCK)].map((m) => Buffer.from(m[1].replace(/\s+/g, ''), 'base64'));
  if (out.length === 0) throw new CertificateError('no PEM certificate (-----BEGIN CERTIFICATE-----) found');
  for (const der of out) {
    try {
      new X509Certificate(der);
    } catch (e) {
      throw new CertificateError(`not an X.509 certificate: ${(e as Error).message}`);
    }
  }
  return out;
}

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/** The SN of one certificate (the first of the PEM text): `app_cert_sn`, `alipay_cert_sn`. */
export function certSn(pem: string): string {
  const f = certFacts(pemCertificates(pem)[0]);
  return md5(f.issuer + f.serialDecimal);
}

/** `alipay_root_cert_sn`: the SNs of the RSA-signed certificates of the root file, joined with `_`. */
export function rootCertSn(pem: string): string {
  const sns = pemCertificates(pem)
    .map(certFacts)
    .filter((f) => f.signatureOid.startsWith('1.2.840.113549.1.1'))
    .map((f) => md5(f.issuer + f.serialDecimal));
  if (sns.length === 0) throw new CertificateError('the root certificate file holds no RSA-signed certificate');
  return sns.join('_');
}
