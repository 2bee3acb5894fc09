/** Development Alipay keys: generated once into DATA_DIR (mode 0600), then read back by every start and by the sandbox. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALIPAY_DEV_DIR, devAlipayMaterial } from './dev-keys';
import { rsa2, rsa2Verifies } from './alipay-rules';

describe('devAlipayMaterial', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-alipay-dev-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generates the keys once, private files only, and the same ones are read back', () => {
    const first = devAlipayMaterial(dir);
    expect(first.appId).toMatch(/^\d{16}$/);
    const files = fs.readdirSync(path.join(dir, ALIPAY_DEV_DIR)).sort();
    expect(files).toEqual(['alipay_private_key.pem', 'app_id', 'app_private_key.pem', 'mini_app_id']);
    for (const f of files) expect(fs.statSync(path.join(dir, ALIPAY_DEV_DIR, f)).mode & 0o777).toBe(0o600);
    const again = devAlipayMaterial(dir);
    expect(again.appId).toBe(first.appId);
    // The two sides' pairs belong together, and are not the same pair.
    expect(rsa2Verifies('x', rsa2('x', again.appPrivateKey), first.appPublicKey)).toBe(true);
    expect(rsa2Verifies('x', rsa2('x', again.alipayPrivateKey), first.alipayPublicKey)).toBe(true);
    expect(rsa2Verifies('x', rsa2('x', again.appPrivateKey), first.alipayPublicKey)).toBe(false);
  });

  it('a folder seeded with the files (the tests seed one set per run) is used as it is', () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-alipay-seed-'));
    try {
      fs.cpSync(path.join(dir, ALIPAY_DEV_DIR), path.join(other, ALIPAY_DEV_DIR), { recursive: true });
      const seeded = devAlipayMaterial(other);
      expect(seeded.appId).toBe(devAlipayMaterial(dir).appId);
      expect(seeded.alipayPublicKey.export({ format: 'pem', type: 'spki' })).toEqual(
        devAlipayMaterial(dir).alipayPublicKey.export({ format: 'pem', type: 'spki' }),
      );
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
