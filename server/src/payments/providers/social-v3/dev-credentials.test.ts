/** Development v3 key material: generated once into DATA_DIR, private files 0600, a configuration that passes the startup check. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicKey } from 'node:crypto';
import { v3Credentials } from './credentials';
import { devV3Material } from './dev-credentials';
import { certificateInfo } from './keys';

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
    for (const f of fs.readdirSync(path.join(dir, 'pay-v3'))) expect(fs.statSync(path.join(dir, 'pay-v3', f)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.join(dir, 'pay-v3')).sort()).toEqual(['apiclient_key.pem', 'ids.json', 'platform_cert.pem', 'platform_key.pem']);
  });

  test('the merchant side passes the startup check in public-key mode; the platform certificate carries the platform key', () => {
    const m = devV3Material(dir);
    const c = v3Credentials({ ...m.settings, PAY_SP_APPID: 'wxsandbox', PAY_SP_MCH_ID: '1900000001' });
    expect(c.platform).toMatchObject({ mode: 'public-key', id: m.platform.publicKeyId });
    const cert = certificateInfo(m.platform.certificatePem);
    expect(cert.serial).toBe(m.platform.certificateSerial);
    expect(cert.publicKey.export({ format: 'der', type: 'spki' })).toEqual(createPublicKey(m.platform.privateKey).export({ format: 'der', type: 'spki' }));
    expect(Buffer.byteLength(m.settings.PAY_V3_KEY)).toBe(32);
  });
});
