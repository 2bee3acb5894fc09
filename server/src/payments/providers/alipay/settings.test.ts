import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alipayCredentials, alipaySettingsProblem, alipaySettingsSchema, ALIPAY_DEFAULT_GATEWAY } from './settings';

const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
const alipay = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (k: KeyObject, type: 'pkcs8' | 'pkcs1' | 'spki') => k.export({ format: 'pem', type }) as string;
const bare = (text: string) => text.replace(/-----[A-Z ]+-----|\s/g, '');
const dir = mkdtempSync(path.join(os.tmpdir(), 'alipay-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { ALIPAY_APP_ID: '2021000122671080', ALIPAY_PRIVATE_KEY: pem(app.privateKey, 'pkcs8'), ALIPAY_PUBLIC_KEY: pem(alipay.publicKey, 'spki') };

test('none set: Alipay is off; the schema gives the gateway its default', () => {
  expect(alipayCredentials({})).toBeNull();
  expect(alipayCredentials(alipaySettingsSchema.parse({}))).toBeNull();
  expect(alipaySettingsSchema.parse({}).ALIPAY_GATEWAY_URL).toBe(ALIPAY_DEFAULT_GATEWAY);
});

test('public-key mode: PEM text, bare base64 (PKCS#8 or PKCS#1) or a path', () => {
  const keyFile = path.join(dir, 'app.key');
  writeFileSync(keyFile, pem(app.privateKey, 'pkcs1'));
  for (const ALIPAY_PRIVATE_KEY of [base.ALIPAY_PRIVATE_KEY, bare(pem(app.privateKey, 'pkcs8')), bare(pem(app.privateKey, 'pkcs1')), keyFile]) {
    const c = alipayCredentials({ ...base, ALIPAY_PRIVATE_KEY, ALIPAY_PUBLIC_KEY: bare(base.ALIPAY_PUBLIC_KEY) });
    expect(c).toMatchObject({ appId: '2021000122671080', gatewayUrl: ALIPAY_DEFAULT_GATEWAY, trust: { mode: 'public-key' } });
  }
});

test.each([
  [{ ALIPAY_PUBLIC_KEY: base.ALIPAY_PUBLIC_KEY }, /^ALIPAY_APP_ID: required/],
  [{ ...base, ALIPAY_APP_ID: 'wx123' }, /^ALIPAY_APP_ID: an Alipay application id is digits/],
  [{ ...base, ALIPAY_PRIVATE_KEY: undefined }, /^ALIPAY_PRIVATE_KEY: required/],
  [{ ...base, ALIPAY_PRIVATE_KEY: '/nowhere/app.key' }, /^ALIPAY_PRIVATE_KEY: neither PEM text nor a readable PEM file \(ENOENT\)/],
  [{ ...base, ALIPAY_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }, /^ALIPAY_PRIVATE_KEY: not an RSA private key/],
  [{ ...base, ALIPAY_PUBLIC_KEY: undefined }, /^ALIPAY_PUBLIC_KEY: required to verify Alipay's answers/],
  [{ ...base, ALIPAY_PUBLIC_KEY: pem(app.publicKey, 'spki') }, /^ALIPAY_PUBLIC_KEY: this is the application's own public key/],
  [{ ...base, ALIPAY_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nAA\n-----END PUBLIC KEY-----' }, /^ALIPAY_PUBLIC_KEY: not an RSA public key/],
  [{ ...base, ALIPAY_APP_CERT: '/x.crt' }, /^ALIPAY_APP_CERT: certificate mode and public-key mode/],
  [
    { ...base, ALIPAY_PUBLIC_KEY: undefined, ALIPAY_PUBLIC_CERT: '-----BEGIN CERTIFICATE-----\nAA\n-----END CERTIFICATE-----' },
    /^ALIPAY_APP_CERT: required in certificate mode/,
  ],
  [
    {
      ...base,
      ALIPAY_PUBLIC_KEY: undefined,
      ALIPAY_APP_CERT: '-----BEGIN CERTIFICATE-----\nAA\n-----END CERTIFICATE-----',
      ALIPAY_PUBLIC_CERT: 'x',
      ALIPAY_ROOT_CERT: 'y',
    },
    /^ALIPAY_PUBLIC_CERT: neither PEM certificate text/,
  ],
  [{ ...base, ALIPAY_MINI_APP_ID: 'abc' }, /^ALIPAY_MINI_APP_ID: /],
  [{ ALIPAY_MINI_APP_ID: '2021000122671081' }, /^ALIPAY_APP_ID: required/],
])('refused naming the setting: %#', (settings, message) => {
  expect(() => alipayCredentials(settings)).toThrow(message);
  expect(alipaySettingsProblem(settings)).toMatch(message);
});
