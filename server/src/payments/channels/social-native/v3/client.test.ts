/**
 * The v3 client over real HTTP against a platform written with wechatpay-axios-plugin's helpers
 * (code the kit does not contain): answers verified before use, the backup domain, Request-ID in
 * the log, certificate mode fetching and rotating certificates.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { Aes, Formatter, Rsa } from 'wechatpay-axios-plugin';
import { V3Client, type V3CallLog } from './client';
import { CertificateSource, CERTIFICATE_REFRESH_MS, PublicKeySource } from './platform-key-source';
import { parseAuthorization } from './sign';
import { GO_NOTIFICATION, GO_PRIVATE_KEY } from './sdk-vectors.fixture';

const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUB_KEY_ID = 'PUB_KEY_ID_0119000000012025010100000000000001';
const apiV3Key = randomBytes(16).toString('hex');
const signer = { mchid: '1900000001', serial: '3775B6A45ACD588826D15E583A95F5DD', privateKey: merchant.privateKey };

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A platform whose answers are signed by the plugin's Rsa over the plugin's Formatter. */
async function platformServer(handler: Handler): Promise<{ url: string; server: Server; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parts = parseAuthorization(req.headers.authorization);
      const message = parts && Formatter.request(req.method!, req.url!, parts.timestamp, parts.nonce_str, body);
      calls.push(`${req.method} ${req.url} ${message && Rsa.verify(message, parts.signature, merchant.publicKey) ? 'signed' : 'unsigned'}`);
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, calls };
}

function signedAnswer(
  res: ServerResponse,
  status: number,
  body: string,
  key: KeyObject,
  serial: string,
  extra: Record<string, string> = {},
  nowMs = Date.now(),
) {
  const ts = String(Math.floor(nowMs / 1000));
  const nonce = Formatter.nonce();
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': 'RID-08E0A2B8',
    'wechatpay-timestamp': ts,
    'wechatpay-nonce': nonce,
    'wechatpay-serial': serial,
    'wechatpay-signature': Rsa.sign(Formatter.response(ts, nonce, body), key),
    ...extra,
  });
  res.end(body);
}

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()));

function recordingLog(): V3CallLog & { lines: Array<[string, Record<string, unknown>]> } {
  const lines: Array<[string, Record<string, unknown>]> = [];
  return { lines, info: (o, m) => lines.push([m, o as Record<string, unknown>]), warn: (o, m) => lines.push([m, o as Record<string, unknown>]) };
}

describe('API v3 client', () => {
  const keys = new PublicKeySource(PUB_KEY_ID, platform.publicKey);
  let mode: 'good' | 'tampered' | 'probe' | 'wrong-key' | 'fail' = 'good';
  let main: Awaited<ReturnType<typeof platformServer>>;

  beforeAll(async () => {
    main = await platformServer((req, _body, res) => {
      const answer = req.method === 'GET' ? JSON.stringify({ trade_state: 'NOTPAY' }) : JSON.stringify({ code_url: 'weixin://wxpay/bizpayurl?pr=K1' });
      if (mode === 'fail') return signedAnswer(res, 503, JSON.stringify({ code: 'SYSTEM_ERROR', message: 'busy' }), platform.privateKey, PUB_KEY_ID);
      if (mode === 'wrong-key') return signedAnswer(res, 200, answer, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, PUB_KEY_ID);
      if (mode === 'probe')
        return signedAnswer(res, 200, answer, platform.privateKey, PUB_KEY_ID, {
          'wechatpay-signature': `WECHATPAY/SIGNTEST/${randomBytes(64).toString('base64')}`,
        });
      // Tampered: signed over one body, another sent.
      if (mode === 'tampered') {
        const ts = String(Formatter.timestamp());
        const nonce = Formatter.nonce();
        res.writeHead(200, {
          'wechatpay-timestamp': ts,
          'wechatpay-nonce': nonce,
          'wechatpay-serial': PUB_KEY_ID,
          'wechatpay-signature': Rsa.sign(Formatter.response(ts, nonce, answer), platform.privateKey),
        });
        return res.end(answer.replace('K1', 'K2'));
      }
      signedAnswer(res, 200, answer, platform.privateKey, PUB_KEY_ID);
    });
  });
  afterAll(() => close(main.server));
  afterEach(() => {
    mode = 'good';
  });

  test('a signed request, a verified answer, and the Request-ID in the log line', async () => {
    const log = recordingLog();
    const client = new V3Client({ baseUrl: main.url, signer, timeoutMs: 5000, log, channel: 'SocialNative' }, keys);
    const a = await client.call({ method: 'POST', path: '/v3/pay/partner/transactions/native', body: { out_trade_no: 'T1' }, repeatable: true });
    expect(a).toMatchObject({ status: 200, body: { code_url: 'weixin://wxpay/bizpayurl?pr=K1' }, requestId: 'RID-08E0A2B8' });
    expect(main.calls.at(-1)).toBe('POST /v3/pay/partner/transactions/native signed');
    const q = await client.call({
      method: 'GET',
      path: '/v3/pay/partner/transactions/out-trade-no/T1?sp_mchid=1900000001&sub_mchid=1900000109',
      repeatable: true,
    });
    expect(q.body).toEqual({ trade_state: 'NOTPAY' });
    expect(main.calls.at(-1)).toBe('GET /v3/pay/partner/transactions/out-trade-no/T1?sp_mchid=1900000001&sub_mchid=1900000109 signed');
    expect(log.lines.at(-1)).toEqual([
      'payment platform call',
      expect.objectContaining({ requestId: 'RID-08E0A2B8', status: 200, path: '/v3/pay/partner/transactions/out-trade-no/T1', channel: 'SocialNative' }),
    ]);
  });

  test.each(['tampered', 'probe', 'wrong-key'] as const)('an answer %s is a channel error, never a result', async (m) => {
    mode = m;
    const log = recordingLog();
    const client = new V3Client({ baseUrl: main.url, signer, timeoutMs: 5000, log }, keys);
    await expect(client.call({ method: 'POST', path: '/v3/pay/partner/transactions/native', body: {}, repeatable: true })).rejects.toMatchObject({
      error: 'channel_error',
    });
    expect(log.lines.at(-1)![0]).toBe('payment platform answer refused');
  });

  test('the backup domain is tried when the main one cannot be reached or answers 5xx, only for repeatable calls', async () => {
    const backup = await platformServer((_req, _body, res) => signedAnswer(res, 200, JSON.stringify({ from: 'backup' }), platform.privateKey, PUB_KEY_ID));
    const dead = await platformServer(() => undefined);
    await close(dead.server);
    try {
      const viaDead = new V3Client({ baseUrl: dead.url, backupUrl: backup.url, signer, timeoutMs: 5000 }, keys);
      expect((await viaDead.call({ method: 'GET', path: '/v3/x', repeatable: true })).body).toEqual({ from: 'backup' });
      await expect(viaDead.call({ method: 'POST', path: '/v3/x', body: {}, repeatable: false })).rejects.toMatchObject({ error: 'channel_unavailable' });
      mode = 'fail';
      const via5xx = new V3Client({ baseUrl: main.url, backupUrl: backup.url, signer, timeoutMs: 5000 }, keys);
      expect((await via5xx.call({ method: 'GET', path: '/v3/y', repeatable: true })).body).toEqual({ from: 'backup' });
      const a = await via5xx.call({ method: 'POST', path: '/v3/y', body: {}, repeatable: false });
      expect(a).toMatchObject({ status: 503, body: { code: 'SYSTEM_ERROR' } });
      expect(backup.calls).toEqual(['GET /v3/x signed', 'GET /v3/y signed']);
    } finally {
      await close(backup.server);
    }
  });
});

describe('certificate mode', () => {
  let dir = '';
  let second = { pem: '', key: createPrivateKey(GO_PRIVATE_KEY), serial: '' };
  let listed: Array<{ pem: string }> = [];
  let signWith = { key: createPrivateKey(GO_PRIVATE_KEY), serial: GO_NOTIFICATION.headers.serial };
  let platformSrv: Awaited<ReturnType<typeof platformServer>>;
  let clock = Date.now();

  beforeAll(async () => {
    // A second platform certificate for the rotation, made by openssl rather than by the kit.
    dir = mkdtempSync(join(tmpdir(), 'v3cert-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
        '-subj',
        '/CN=rotated',
        '-days',
        '30',
        '-set_serial',
        '0x5D2E0A1B3C4D5E6F',
      ],
      { stdio: 'ignore' },
    );
    second = { pem: readFileSync(join(dir, 'c.pem'), 'utf8'), key: createPrivateKey(readFileSync(join(dir, 'k.pem'))), serial: '5D2E0A1B3C4D5E6F' };
    listed = [{ pem: GO_NOTIFICATION.certificate }];
    // The kit's clock starts after the new certificate's notBefore.
    clock = Date.now() + 2000;
    platformSrv = await platformServer((req, _body, res) => {
      if (req.url === '/v3/certificates') {
        const data = listed.map(({ pem }) => {
          const nonce = Formatter.nonce(12);
          const serial = pem === second.pem ? second.serial : GO_NOTIFICATION.headers.serial;
          return {
            serial_no: serial,
            effective_time: '2021-04-27T16:55:23+08:00',
            expire_time: '2031-04-25T16:55:23+08:00',
            encrypt_certificate: {
              algorithm: 'AEAD_AES_256_GCM',
              nonce,
              associated_data: 'certificate',
              ciphertext: Aes.AesGcm.encrypt(pem, apiV3Key, nonce, 'certificate'),
            },
          };
        });
        return signedAnswer(res, 200, JSON.stringify({ data }), signWith.key, signWith.serial, {}, clock);
      }
      signedAnswer(res, 200, JSON.stringify({ ok: true }), signWith.key, signWith.serial, {}, clock);
    });
  });
  afterAll(async () => {
    await close(platformSrv.server);
    rmSync(dir, { recursive: true, force: true });
  });

  test('fetches the certificates before the first answer, refetches on an unknown serial, every 12 h, and never trusts a certificate signed off by itself only', async () => {
    // The source downloads through the client whose answers it verifies.
    const source: CertificateSource = new CertificateSource(
      () => client,
      apiV3Key,
      () => clock,
    );
    const client = new V3Client({ baseUrl: platformSrv.url, signer, timeoutMs: 5000 }, source);
    const fetches = () => platformSrv.calls.filter((c) => c.startsWith('GET /v3/certificates')).length;

    await client.call({ method: 'GET', path: '/v3/a', repeatable: true });
    expect(fetches()).toBe(1);
    expect(source.ring.ids()).toEqual(['D7CE59D1F522D701']);
    expect((await source.encryptionKey()).id).toBe('D7CE59D1F522D701');

    // Rotation: the platform lists both and starts signing with the new one.
    listed = [{ pem: GO_NOTIFICATION.certificate }, { pem: second.pem }];
    signWith = { key: second.key, serial: second.serial };
    await client.call({ method: 'GET', path: '/v3/b', repeatable: true });
    expect(fetches()).toBe(2);
    expect(source.ring.ids().sort()).toEqual(['5D2E0A1B3C4D5E6F', 'D7CE59D1F522D701']);

    // An unknown serial within the minute does not refetch; the answer is refused.
    signWith = { key: second.key, serial: 'ABCDEF0123' };
    await expect(client.call({ method: 'GET', path: '/v3/c', repeatable: true })).rejects.toMatchObject({ error: 'channel_error' });
    expect(fetches()).toBe(2);
    signWith = { key: second.key, serial: second.serial };

    // The old certificate is dropped when no longer listed, at the 12-hour refresh.
    listed = [{ pem: second.pem }];
    clock += CERTIFICATE_REFRESH_MS;
    await client.call({ method: 'GET', path: '/v3/d', repeatable: true });
    expect(fetches()).toBe(3);
    expect(source.ring.ids()).toEqual(['5D2E0A1B3C4D5E6F']);
  });

  test('a certificate list under another APIv3 key, or not signed by a listed certificate, is refused', async () => {
    const wrongKey: CertificateSource = new CertificateSource(
      (): V3Client => new V3Client({ baseUrl: platformSrv.url, signer, timeoutMs: 5000 }, wrongKey),
      'k'.repeat(32),
      () => clock,
    );
    await expect(wrongKey.encryptionKey()).rejects.toMatchObject({ error: 'channel_error', message: expect.stringMatching(/does not decrypt/) });
    listed = [{ pem: GO_NOTIFICATION.certificate }];
    signWith = { key: second.key, serial: second.serial };
    const unsigned: CertificateSource = new CertificateSource(
      (): V3Client => new V3Client({ baseUrl: platformSrv.url, signer, timeoutMs: 5000 }, unsigned),
      apiV3Key,
      () => clock,
    );
    await expect(unsigned.encryptionKey()).rejects.toMatchObject({
      error: 'channel_error',
      message: expect.stringMatching(/no platform key with serial 5D2E0A1B3C4D5E6F/),
    });
  });
});
