import { clockReading } from '@kit/shared/test-clock';
/**
 * Certificate mode against alipay-sdk: the SNs (`app_cert_sn`, `alipay_cert_sn`,
 * `alipay_root_cert_sn`) of certificates made here with openssl, the requests that carry them, and
 * answers checked against the certificate `alipay_cert_sn` names.
 */
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AlipaySdk } from 'alipay-sdk';
import { AlipayClient, type AlipayTransport } from './client';
import { certSn, rootCertSn } from './cert-sn';
import { alipayCredentials, type AlipayCredentials } from './settings';

const dir = mkdtempSync(path.join(os.tmpdir(), 'alipay-certs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
const alipay = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pkcs8 = (k: KeyObject) => (k.export({ format: 'pem', type: 'pkcs8' }) as string).trim();
writeFileSync(file('app.key'), pkcs8(app.privateKey));
writeFileSync(file('alipay.key'), pkcs8(alipay.privateKey));

// Alipay's root file holds RSA roots and an SM2 one; an ECDSA root stands in for the latter (left out of the SN).
openssl(
  'req',
  '-x509',
  '-newkey',
  'rsa:2048',
  '-nodes',
  '-keyout',
  'root.key',
  '-out',
  'root.crt',
  '-days',
  '3650',
  '-sha256',
  '-set_serial',
  '0x6a9a37c4bb1a85f1',
  '-subj',
  '/C=CN/O=Ant Financial/OU=Certification Authority/CN=Ant Financial Certification Authority R1',
);
openssl(
  'req',
  '-x509',
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:prime256v1',
  '-nodes',
  '-keyout',
  'ec.key',
  '-out',
  'ec.crt',
  '-days',
  '3650',
  '-subj',
  '/C=CN/O=Ant Financial/OU=Certification Authority/CN=Ant Financial Certification Authority E1',
);
openssl(
  'req',
  '-x509',
  '-newkey',
  'rsa:2048',
  '-nodes',
  '-keyout',
  'root2.key',
  '-out',
  'root2.crt',
  '-days',
  '3650',
  '-sha1',
  '-set_serial',
  '7',
  '-subj',
  '/C=CN/O=Ant Financial/OU=Certification Authority/CN=Ant Financial Certification Authority R0',
);
function issue(key: string, subject: string, serial: string, out: string) {
  openssl('req', '-new', '-key', key, '-subj', subject, '-out', `${out}.csr`);
  openssl('x509', '-req', '-in', `${out}.csr`, '-CA', 'root.crt', '-CAkey', 'root.key', '-set_serial', serial, '-days', '365', '-sha256', '-out', out);
}
// Serials as Alipay's are: long, one with its high bit set (DER adds a leading zero byte).
issue('app.key', `/C=CN/O=Some Shop Co Ltd/OU=Alipay/CN=2088000000000001-2021000122671080`, '0x2024070100112233445566778899', 'app.crt');
issue('alipay.key', '/C=CN/O=Ant Financial/OU=Alipay/CN=Alipay-RSA2', '0xf024a5b6c7d8e9', 'alipay.crt');
const rootFile = [readFileSync(file('root.crt'), 'utf8'), readFileSync(file('ec.crt'), 'utf8'), readFileSync(file('root2.crt'), 'utf8')].join('');
writeFileSync(file('alipayRootCert.crt'), rootFile);

const APP_ID = '2021000122671080';
const sdk = new AlipaySdk({
  appId: APP_ID,
  privateKey: pkcs8(app.privateKey),
  keyType: 'PKCS8',
  appCertPath: file('app.crt'),
  alipayPublicCertPath: file('alipay.crt'),
  alipayRootCertPath: file('alipayRootCert.crt'),
});
const settings = {
  ALIPAY_APP_ID: APP_ID,
  ALIPAY_PRIVATE_KEY: file('app.key'),
  ALIPAY_APP_CERT: file('app.crt'),
  ALIPAY_PUBLIC_CERT: readFileSync(file('alipay.crt'), 'utf8'),
  ALIPAY_ROOT_CERT: file('alipayRootCert.crt'),
};

test("the SNs are alipay-sdk's: app and Alipay certificates, the root file's RSA certificates only", () => {
  const c = sdk.config as unknown as { appCertSn: string; alipayCertSn: string; alipayRootCertSn: string };
  expect(c.alipayRootCertSn.split('_')).toHaveLength(2);
  expect(certSn(readFileSync(file('app.crt'), 'utf8'))).toBe(c.appCertSn);
  expect(certSn(readFileSync(file('alipay.crt'), 'utf8'))).toBe(c.alipayCertSn);
  expect(rootCertSn(rootFile)).toBe(c.alipayRootCertSn);
  expect(alipayCredentials(settings)?.trust).toMatchObject({
    mode: 'certificate',
    appCertSn: c.appCertSn,
    alipayCertSn: c.alipayCertSn,
    alipayRootCertSn: c.alipayRootCertSn,
  });
});

describe('calls in certificate mode', () => {
  const credentials = alipayCredentials(settings) as AlipayCredentials;
  const NOW = Date.UTC(2024, 5, 30, 17, 30, 5);
  const order = {
    appAuthToken: '202406BBa1b2c3',
    outTradeNo: 'P_1',
    totalCents: 1,
    subject: 'Shop',
    expireAt: NOW + 600_000,
    notifyUrl: 'https://kit.example.test/pay-notify/alipay',
  };
  const answer = (node: object, sn: string) => {
    const text = JSON.stringify(node).replace(/\//g, '\\/');
    const sign = createSign('RSA-SHA256').update(text).sign(alipay.privateKey, 'base64');
    return `{"alipay_trade_close_response":${text},"alipay_cert_sn":"${sn}","sign":"${sign}"}`;
  };
  const transport =
    (raw: string): AlipayTransport =>
    async () => ({ status: 200, text: raw });

  test("every request carries app_cert_sn and alipay_root_cert_sn: the app order string equals alipay-sdk's", () => {
    const kit = Object.fromEntries(new URLSearchParams(new AlipayClient(credentials, { clock: clockReading(() => NOW) }).appPayOrderString(order)));
    jest.useFakeTimers({ now: NOW + 8 * 3_600_000 + new Date(NOW).getTimezoneOffset() * 60_000 });
    let theirs: Record<string, string>;
    try {
      theirs = Object.fromEntries(
        new URLSearchParams(
          sdk.sdkExecute(
            'alipay.trade.app.pay',
            { format: 'JSON', notify_url: order.notifyUrl, app_auth_token: order.appAuthToken, bizContent: JSON.parse(kit.biz_content) },
            { bizContentAutoSnakeCase: false },
          ),
        ),
      );
    } finally {
      jest.useRealTimers();
    }
    expect(kit.app_cert_sn).toBe(credentials.trust.mode === 'certificate' && credentials.trust.appCertSn);
    expect(kit).toEqual(theirs);
  });

  test('an answer signed by the certificate alipay_cert_sn names is used; another SN, or a bad sign, is refused', async () => {
    const sn = (sdk.config as unknown as { alipayCertSn: string }).alipayCertSn;
    const ok = answer({ code: '10000', msg: 'Success', out_trade_no: 'P_1', trade_no: 'T1' }, sn);
    const sdkChecking = new AlipaySdk({
      appId: APP_ID,
      privateKey: pkcs8(app.privateKey),
      keyType: 'PKCS8',
      appCertPath: file('app.crt'),
      alipayPublicCertPath: file('alipay.crt'),
      alipayRootCertPath: file('alipayRootCert.crt'),
    });
    expect(() => sdkChecking.checkResponseSign(ok, 'alipay_trade_close_response', JSON.parse(ok).sign, 't')).not.toThrow();
    const ref = { appAuthToken: 'tok', outTradeNo: 'P_1' };
    await expect(new AlipayClient(credentials, { transport: transport(ok) }).close(ref)).resolves.toEqual({ outTradeNo: 'P_1', closed: true, exists: true });
    const renewed = answer({ code: '10000', msg: 'Success', out_trade_no: 'P_1' }, '0123456789abcdef0123456789abcdef');
    await expect(new AlipayClient(credentials, { transport: transport(renewed) }).close(ref)).rejects.toMatchObject({
      failure: 'signature',
      message: expect.stringMatching(/not ALIPAY_PUBLIC_CERT/),
    });
    const tampered = ok.replace('"T1"', '"T2"');
    await expect(new AlipayClient(credentials, { transport: transport(tampered) }).close(ref)).rejects.toMatchObject({ failure: 'signature' });
  });
});
