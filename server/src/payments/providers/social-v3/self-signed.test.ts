/** The sandbox's self-made platform certificate reads back, checks, and passes the certificate-mode rules. */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { decodeCertificates, encryptCertificateEntry } from './certificates';
import { certificateInfo } from './keys';
import { selfSignedCertificate } from './self-signed';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const notBefore = Date.UTC(2025, 0, 1);
const notAfter = Date.UTC(2055, 0, 1);

describe('self-signed platform certificate', () => {
  const pem = selfSignedCertificate(privateKey, { commonName: 'Sandbox 支付平台', serial: '8A0F3C2D1E4B5A69', notBefore, notAfter });

  test('Node reads it: serial, validity (UTCTime and GeneralizedTime), key, own signature', () => {
    const cert = new X509Certificate(pem);
    expect(cert.serialNumber).toBe('8A0F3C2D1E4B5A69');
    expect(Date.parse(cert.validFrom)).toBe(notBefore);
    expect(Date.parse(cert.validTo)).toBe(notAfter);
    expect(cert.subject).toContain('CN=Sandbox 支付平台');
    expect(cert.verify(publicKey)).toBe(true);
    expect(cert.verify(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey)).toBe(false);
    expect(certificateInfo(pem).publicKey.export({ format: 'der', type: 'spki' })).toEqual(publicKey.export({ format: 'der', type: 'spki' }));
  });

  test('openssl reads it too', () => {
    const text = execFileSync('openssl', ['x509', '-noout', '-serial', '-enddate'], { input: pem }).toString();
    expect(text).toContain('serial=8A0F3C2D1E4B5A69');
    expect(text).toContain('notAfter=Jan  1 00:00:00 2055 GMT');
  });

  test('a serial with its high bit clear and leading zeros, and the certificates answer round trip', () => {
    const other = selfSignedCertificate(privateKey, { commonName: 'x', serial: '000012AB', notBefore, notAfter: Date.UTC(2030, 0, 1) });
    expect(new X509Certificate(other).serialNumber).toBe('12AB');
    const key = randomBytes(16).toString('hex');
    const body = JSON.stringify({ data: [encryptCertificateEntry(pem, key, 'abcdefghijkl'), encryptCertificateEntry(other, key, 'bcdefghijklm')] });
    expect(decodeCertificates(body, key, Date.UTC(2026, 0, 1)).map((c) => c.serial)).toEqual(['8A0F3C2D1E4B5A69', '12AB']);
  });
});
