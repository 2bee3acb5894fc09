/** Which merchant the sandbox's v3 platform trusts: the configured one when its settings are given, else the development one. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import type { Config } from '@kit/server/config';
import { serialOf } from '../protocol/v3-rules';
import { faultsSchema } from '../sandbox-faults';
import { devCertSerial, devV3Material } from './dev-credentials';
import { sandboxV3Keys, signingUnder, SwitchTurns } from './sandbox-v3-keys';

const spki = (k: KeyObject | string) => (k instanceof KeyObject && k.type === 'public' ? k : createPublicKey(k)).export({ format: 'der', type: 'spki' });

describe('sandboxV3Keys', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-sbx-v3-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('with no v3 settings: the development merchant of DATA_DIR/pay-v3, and the platform side of the same files', () => {
    const keys = sandboxV3Keys({ DATA_DIR: dir, PAY_SP_MCH_ID: '1900000109' } as Config);
    const dev = devV3Material(dir);
    expect(spki(keys.merchant.publicKey).equals(spki(dev.settings.PAY_SP_PRIVATE_KEY))).toBe(true);
    expect(keys.merchant).toMatchObject({ mchid: '1900000109', serial: serialOf(dev.settings.PAY_SP_CERT_SERIAL) });
    expect(keys.apiV3Key).toBe(dev.settings.PAY_V3_KEY);
    expect(keys.publicKeyId).toBe(dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID);
    expect(spki(keys.privateKey).equals(spki(dev.settings.PAY_PLATFORM_PUBLIC_KEY))).toBe(true);
    expect(keys.certificateSerial).toBe(dev.platform.certificateSerial);
  });

  test('with the merchant configured: the public key of PAY_SP_PRIVATE_KEY, its serial (any case) and PAY_V3_KEY', () => {
    const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const keys = sandboxV3Keys({
      DATA_DIR: dir,
      PAY_SP_MCH_ID: '1900000001',
      PAY_SP_PRIVATE_KEY: merchant,
      PAY_SP_CERT_SERIAL: '5157f09efdc096de15ebe81a47057a7232f1b8e1',
      PAY_V3_KEY: 'k'.repeat(32),
    } as unknown as Config);
    expect(spki(keys.merchant.publicKey).equals(spki(merchant))).toBe(true);
    expect(keys.merchant).toMatchObject({ mchid: '1900000001', serial: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1' });
    expect(keys.apiV3Key).toBe('k'.repeat(32));
  });

  test('a development serial written with a leading zero (an older DATA_DIR) is compared without it', () => {
    const old = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-sbx-v3-old-'));
    try {
      const first = devV3Material(old);
      const idsFile = path.join(old, 'pay-v3', 'ids.json');
      const ids = JSON.parse(fs.readFileSync(idsFile, 'utf8'));
      fs.writeFileSync(idsFile, JSON.stringify({ ...ids, merchantCertSerial: `0${first.settings.PAY_SP_CERT_SERIAL.slice(1)}` }));
      const keys = sandboxV3Keys({ DATA_DIR: old, PAY_SP_MCH_ID: '1900000109' } as Config);
      expect(keys.merchant.serial).toBe(serialOf(first.settings.PAY_SP_CERT_SERIAL.slice(1)));
      expect(keys.merchant.serial).not.toMatch(/^0/);
    } finally {
      fs.rmSync(old, { recursive: true, force: true });
    }
  });

  test('new development serials never begin with a zero, so the value in ids.json is the one compared', () => {
    for (let i = 0; i < 400; i++) expect(devCertSerial(20)).toMatch(/^[1-9A-F][0-9A-F]*$/);
  });
});

describe('a merchant switching from certificates to the public key (fault v3Serial: "switching")', () => {
  const turns = (share: number, n: number) => {
    const t = new SwitchTurns();
    return Array.from({ length: n }, () => (t.publicKeyNext(share) ? 'P' : 'C')).join('');
  };

  test('the public key signs its share, spread evenly: by turns at 0.5 (the certificate first), never at 0, always at 1', () => {
    expect(turns(0.5, 6)).toBe('CPCPCP');
    expect(turns(0.25, 8)).toBe('CCCPCCCP');
    expect(turns(0, 4)).toBe('CCCC');
    expect(turns(1, 4)).toBe('PPPP');
  });

  test('answers to requests that do not name the public-key id are signed with the certificate', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-sbx-v3-'));
    try {
      const keys = sandboxV3Keys({ DATA_DIR: dir, PAY_SP_MCH_ID: '1900000109' } as Config);
      const f = faultsSchema.parse({ v3Serial: 'switching', v3PublicKeyShare: 1 });
      expect(signingUnder(keys, f, null).serial).toBe(keys.certificateSerial);
      expect(signingUnder(keys, f, keys.switching.answers).serial).toBe(keys.publicKeyId);
      expect(signingUnder(keys, faultsSchema.parse({}), null).serial).toBe(keys.publicKeyId);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
