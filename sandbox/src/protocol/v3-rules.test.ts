/** The sandbox's API v3 rules against the field's own code, wechatpay-axios-plugin: the referee refereed. */
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Aes, Formatter, Rsa } from 'wechatpay-axios-plugin';
import {
  aeadOpen,
  aeadSeal,
  certificateEntry,
  oaepOpen,
  platformHeaders,
  platformNonce,
  readAuthorization,
  requestVerifies,
  serialOf,
  signedText,
} from './v3-rules';

const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
const apiV3Key = createHash('md5').update('v3 key').digest('hex'); // 32 characters

describe('the sandbox reads a request as the field writes it', () => {
  const body = JSON.stringify({ out_trade_no: 'T1', amount: { total: 1 } });
  const url = '/v3/pay/partner/transactions/native?x=1';
  const nonce = Formatter.nonce();
  const timestamp = Formatter.timestamp();
  const signature = Rsa.sign(Formatter.request('POST', url, timestamp, nonce, body), merchant.privateKey);
  const header = Formatter.authorization('1900000109', nonce, signature, timestamp, '5157F09EFDC096DE15EBE81A47057A72');

  it("verifies the plug-in's Authorization and refuses any change", () => {
    const auth = readAuthorization(header);
    expect(auth).toEqual({ mchid: '1900000109', serial_no: '5157F09EFDC096DE15EBE81A47057A72', timestamp: String(timestamp), nonce_str: nonce, signature });
    expect(requestVerifies(auth!, 'POST', url, body, merchant.publicKey)).toBe(true);
    expect(requestVerifies(auth!, 'POST', url, `${body} `, merchant.publicKey)).toBe(false);
    expect(requestVerifies(auth!, 'GET', url, body, merchant.publicKey)).toBe(false);
    expect(requestVerifies(auth!, 'POST', url, body, platform.publicKey)).toBe(false);
  });

  it('refuses a header of another scheme or without a field', () => {
    expect(readAuthorization(header.replace('WECHATPAY2-SHA256-RSA2048', 'WECHATPAY2-SHA256'))).toBeNull();
    expect(readAuthorization(header.replace(/,signature="[^"]*"/, ''))).toBeNull();
    expect(readAuthorization(undefined)).toBeNull();
  });

  it('writes the signed text as the plug-in does', () => {
    expect(signedText('GET', url, 1, 'n', '')).toBe(Formatter.request('GET', url, 1, 'n', ''));
    expect(signedText(1, 'n', body)).toBe(Formatter.response(1, 'n', body));
  });
});

describe('the field reads what the sandbox writes', () => {
  it("signs answers and notifications so that the plug-in's Rsa.verify takes them", () => {
    const body = '{"code":"SUCCESS"}';
    const h = platformHeaders(body, { privateKey: platform.privateKey, serial: 'PUB_KEY_ID_01' }, Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(h['wechatpay-timestamp']).toBe(String(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000));
    expect(h['wechatpay-nonce']).toMatch(/^[0-9A-Z]{32}$/);
    expect(h['wechatpay-serial']).toBe('PUB_KEY_ID_01');
    expect(Rsa.verify(Formatter.response(h['wechatpay-timestamp'], h['wechatpay-nonce'], body), h['wechatpay-signature'], platform.publicKey)).toBe(true);
    expect(Rsa.verify(Formatter.response(h['wechatpay-timestamp'], h['wechatpay-nonce'], `${body} `), h['wechatpay-signature'], platform.publicKey)).toBe(
      false,
    );
  });

  it('seals resources in AEAD_AES_256_GCM as the plug-in opens them, and opens what it seals', () => {
    const nonce = platformNonce(12);
    const sealed = aeadSeal('{"trade_state":"SUCCESS"}', apiV3Key, nonce, 'transaction');
    expect(Aes.AesGcm.decrypt(sealed, apiV3Key, nonce, 'transaction')).toBe('{"trade_state":"SUCCESS"}');
    expect(() => Aes.AesGcm.decrypt(sealed, apiV3Key, nonce, 'refund')).toThrow();
    expect(aeadOpen(Aes.AesGcm.encrypt('名字', apiV3Key, nonce, 'certificate'), apiV3Key, nonce, 'certificate')).toBe('名字');
    expect(() => aeadSeal('x', 'short', nonce, '')).toThrow(/32 bytes/);
  });

  it("opens a name the plug-in's Rsa.encrypt sealed to the platform key (RSA-OAEP)", () => {
    expect(oaepOpen(Rsa.encrypt('张三', platform.publicKey), platform.privateKey)).toBe('张三');
  });

  it('lists a certificate sealed under the APIv3 key with its serial and China-time validity', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'v3-rules-'));
    let pem: string;
    try {
      writeFileSync(path.join(dir, 'key.pem'), platform.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const args = ['req', '-x509', '-new', '-key', 'key.pem', '-subj', '/CN=platform', '-days', '30', '-set_serial', '0x00ABCDEF'];
      pem = execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const entry = certificateEntry(pem, apiV3Key, 'abcdefghijkl') as {
      serial_no: string;
      effective_time: string;
      encrypt_certificate: { algorithm: string; nonce: string; associated_data: string; ciphertext: string };
    };
    expect(entry.serial_no).toBe('ABCDEF');
    expect(entry.effective_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00$/);
    const c = entry.encrypt_certificate;
    expect(c.algorithm).toBe('AEAD_AES_256_GCM');
    expect(new X509Certificate(Aes.AesGcm.decrypt(c.ciphertext, apiV3Key, c.nonce, c.associated_data)).serialNumber).toBe(
      new X509Certificate(pem).serialNumber,
    );
  });

  it('writes serials as the platform does', () => {
    expect(serialOf('00abcdef')).toBe('ABCDEF');
    expect(serialOf('PUB_KEY_ID_0114')).toBe('PUB_KEY_ID_0114');
  });
});
