/**
 * Development v3 key material: generated once into DATA_DIR, private files 0600; the merchant side a
 * configuration the kit's startup check passes, the platform certificate over the platform key, and
 * protocol v2's development client certificate over the merchant key. The kit's own readers
 * (`credentials.ts`, node's `X509Certificate`) check what the sandbox made.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { v3Credentials } from '@kit/server/payments/providers/social-v3/credentials';
import { clientTlsOf } from '@kit/server/payments/providers/social-v2/client-certificate';
import { devClientCertificate, devV3Material, V3_DEV_DIR } from './dev-credentials';

const NOW = Date.UTC(2025, 0, 1);
const spki = (k: Parameters<typeof createPublicKey>[0]) => createPublicKey(k).export({ format: 'der', type: 'spki' });

describe('development v3 key material', () => {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'v3dev-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('generated on first start, the same on the next, files 0600', () => {
    const first = devV3Material(dir);
    const again = devV3Material(dir);
    expect(again.settings).toEqual(first.settings);
    const files = fs.readdirSync(path.join(dir, V3_DEV_DIR)).sort();
    expect(files).toEqual(['apiclient_key.pem', 'ids.json', 'platform_cert.pem', 'platform_key.pem']);
    for (const f of files) expect(fs.statSync(path.join(dir, V3_DEV_DIR, f)).mode & 0o777).toBe(0o600);
  });

  test('the merchant side passes the startup check in public-key mode; the platform certificate carries the platform key', () => {
    const m = devV3Material(dir);
    const c = v3Credentials({ ...m.settings, PAY_SP_APPID: 'wxsandbox', PAY_SP_MCH_ID: '1900000001' });
    expect(c.platform).toMatchObject({ mode: 'public-key', id: m.platform.publicKeyId });
    const cert = new X509Certificate(m.platform.certificatePem);
    expect(cert.serialNumber.replace(/^0+/, '')).toBe(m.platform.certificateSerial);
    expect(cert.publicKey.export({ format: 'der', type: 'spki' })).toEqual(spki(m.platform.privateKey));
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(Buffer.byteLength(m.settings.PAY_V3_KEY)).toBe(32);
  });

  test("protocol v2's development client certificate: over the merchant API key, with its serial, made once, taken by the kit's check", () => {
    const first = devClientCertificate(dir, NOW);
    const { settings } = devV3Material(dir, NOW);
    expect(first.key).toBe(settings.PAY_SP_PRIVATE_KEY);
    const x509 = new X509Certificate(first.cert);
    expect(x509.checkPrivateKey(createPrivateKey(first.key))).toBe(true);
    expect(x509.publicKey.export({ format: 'der', type: 'spki' })).toEqual(spki(settings.PAY_SP_PRIVATE_KEY));
    expect(x509.serialNumber.replace(/^0+/, '')).toBe(settings.PAY_SP_CERT_SERIAL);
    expect(fs.statSync(path.join(dir, V3_DEV_DIR, 'apiclient_cert.pem')).mode & 0o777).toBe(0o600);
    expect(devClientCertificate(dir, NOW + 60_000)).toEqual(first);
    expect(clientTlsOf({ PAY_V2_CLIENT_CERT: first.cert, PAY_V2_CLIENT_KEY: first.key })).toEqual({ cert: first.cert.trim(), key: first.key.trim() });
  });
});
