/** Startup checks of the v3 settings: every refusal names the setting. */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v3Credentials, type V3Settings } from './credentials';
import { GO_NOTIFICATION } from './sdk-vectors.fixture';

const pem = (k: KeyObject) => k.export({ format: 'pem', type: k.type === 'private' ? 'pkcs8' : 'spki' }).toString();
const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });

const base: V3Settings = {
  PAY_SP_APPID: 'wx8888888888888888',
  PAY_SP_MCH_ID: '1900000001',
  PAY_SP_PRIVATE_KEY: pem(merchant.privateKey),
  PAY_SP_CERT_SERIAL: '5157f09efdc096de15ebe81a47057a7232f1b8e1',
  PAY_V3_KEY: randomBytes(16).toString('hex'),
};

describe('v3 settings', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'v3set-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('certificate mode without platform settings; public-key mode with both; PEM text or a file path', () => {
    expect(v3Credentials(base)).toMatchObject({
      spAppId: 'wx8888888888888888',
      platform: { mode: 'certificate' },
      signer: { mchid: '1900000001', serial: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1' },
    });
    const keyFile = join(dir, 'apiclient_key.pem');
    const pubFile = join(dir, 'pub_key.pem');
    writeFileSync(keyFile, pem(merchant.privateKey));
    writeFileSync(pubFile, pem(platform.publicKey));
    const c = v3Credentials({
      ...base,
      PAY_SP_PRIVATE_KEY: keyFile,
      PAY_PLATFORM_PUBLIC_KEY: pubFile,
      PAY_PLATFORM_PUBLIC_KEY_ID: 'PUB_KEY_ID_0119000000012025',
    });
    expect(c.platform).toMatchObject({ mode: 'public-key', id: 'PUB_KEY_ID_0119000000012025' });
    // A platform certificate is accepted where a public key is expected.
    expect(v3Credentials({ ...base, PAY_PLATFORM_PUBLIC_KEY: GO_NOTIFICATION.certificate, PAY_PLATFORM_PUBLIC_KEY_ID: 'PUB_KEY_ID_1' }).platform.mode).toBe(
      'public-key',
    );
  });

  test.each<[string, V3Settings, RegExp]>([
    ['missing app id', { ...base, PAY_SP_APPID: '' }, /^PAY_SP_APPID: required/],
    ['missing merchant number', { ...base, PAY_SP_MCH_ID: undefined }, /^PAY_SP_MCH_ID: required/],
    ['missing private key', { ...base, PAY_SP_PRIVATE_KEY: undefined }, /^PAY_SP_PRIVATE_KEY: required/],
    [
      'private key that does not parse',
      { ...base, PAY_SP_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' },
      /^PAY_SP_PRIVATE_KEY: not an RSA private key/,
    ],
    [
      'private key file that is not there',
      { ...base, PAY_SP_PRIVATE_KEY: '/nonexistent/apiclient_key.pem' },
      /^PAY_SP_PRIVATE_KEY: neither PEM text nor a readable PEM file \(ENOENT\)/,
    ],
    [
      'an EC key',
      { ...base, PAY_SP_PRIVATE_KEY: pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey) },
      /^PAY_SP_PRIVATE_KEY: an RSA key is expected, this is ec/,
    ],
    ['serial that is not hex', { ...base, PAY_SP_CERT_SERIAL: 'serial-1' }, /^PAY_SP_CERT_SERIAL: /],
    ['short APIv3 key', { ...base, PAY_V3_KEY: 'short' }, /^PAY_V3_KEY: the APIv3 key has 32 characters/],
    ['public key without id', { ...base, PAY_PLATFORM_PUBLIC_KEY: pem(platform.publicKey) }, /^PAY_PLATFORM_PUBLIC_KEY_ID: required/],
    ['id without public key', { ...base, PAY_PLATFORM_PUBLIC_KEY_ID: 'PUB_KEY_ID_1' }, /^PAY_PLATFORM_PUBLIC_KEY: required/],
    [
      'id of another shape',
      { ...base, PAY_PLATFORM_PUBLIC_KEY: pem(platform.publicKey), PAY_PLATFORM_PUBLIC_KEY_ID: '5157F09E' },
      /^PAY_PLATFORM_PUBLIC_KEY_ID: /,
    ],
    [
      'public key that does not parse',
      { ...base, PAY_PLATFORM_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nAA\n-----END PUBLIC KEY-----', PAY_PLATFORM_PUBLIC_KEY_ID: 'PUB_KEY_ID_1' },
      /^PAY_PLATFORM_PUBLIC_KEY: not an RSA public key/,
    ],
    [
      "the merchant's own public key",
      { ...base, PAY_PLATFORM_PUBLIC_KEY: pem(merchant.publicKey), PAY_PLATFORM_PUBLIC_KEY_ID: 'PUB_KEY_ID_1' },
      /^PAY_PLATFORM_PUBLIC_KEY: this is the merchant's own/,
    ],
  ])('refused: %s', (_what, settings, message) => {
    expect(() => v3Credentials(settings)).toThrow(message);
  });
});
