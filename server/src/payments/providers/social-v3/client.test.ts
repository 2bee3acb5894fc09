/**
 * The v3 client over real HTTP against a platform written with wechatpay-axios-plugin's helpers
 * (code the kit does not contain): answers verified before use, the backup domain, Request-ID in
 * the log, certificate mode fetching and rotating certificates.
 */
import { systemClock } from '@kit/shared/clock';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
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
import { waitFor } from '../../../../test/support/wait';

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
  const keys = new PublicKeySource(PUB_KEY_ID, platform.publicKey, Date.now);
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
    const client = new V3Client({ baseUrl: main.url, signer, timeoutMs: 5000, clock: systemClock, log, channel: 'SocialNative' }, keys);
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
    const client = new V3Client({ baseUrl: main.url, signer, timeoutMs: 5000, clock: systemClock, log }, keys);
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
      const viaDead = new V3Client({ baseUrl: dead.url, backupUrl: backup.url, signer, timeoutMs: 5000, clock: systemClock }, keys);
      expect((await viaDead.call({ method: 'GET', path: '/v3/x', repeatable: true })).body).toEqual({ from: 'backup' });
      await expect(viaDead.call({ method: 'POST', path: '/v3/x', body: {}, repeatable: false })).rejects.toMatchObject({ error: 'channel_unavailable' });
      mode = 'fail';
      const via5xx = new V3Client({ baseUrl: main.url, backupUrl: backup.url, signer, timeoutMs: 5000, clock: systemClock }, keys);
      expect((await via5xx.call({ method: 'GET', path: '/v3/y', repeatable: true })).body).toEqual({ from: 'backup' });
      // Not repeatable: the 5xx stands, as "send it again later", with the platform's code.
      await expect(via5xx.call({ method: 'POST', path: '/v3/y', body: {}, repeatable: false })).rejects.toMatchObject({
        error: 'channel_unavailable',
        message: expect.stringMatching(/HTTP 503 SYSTEM_ERROR busy \(Request-ID RID-08E0A2B8\)/),
        details: { retryAfterSeconds: 5 },
      });
      expect(backup.calls).toEqual(['GET /v3/x signed', 'GET /v3/y signed']);
    } finally {
      await close(backup.server);
    }
  });
});

describe('API v3 client: what the platform really does', () => {
  const keys = new PublicKeySource(PUB_KEY_ID, platform.publicKey, Date.now);
  type Answer = { status: number; body: string; signed: boolean; headers?: Record<string, string> };
  let next: Answer = { status: 200, body: '{}', signed: true };
  const seen: Array<{ method: string; serial: string | undefined }> = [];
  let srv: Awaited<ReturnType<typeof platformServer>>;

  beforeAll(async () => {
    srv = await platformServer((req, _body, res) => {
      seen.push({ method: req.method!, serial: req.headers['wechatpay-serial'] as string | undefined });
      if (next.signed) return signedAnswer(res, next.status, next.body, platform.privateKey, PUB_KEY_ID, next.headers);
      res.writeHead(next.status, { 'content-type': 'application/json', 'request-id': 'RID-UNSIGNED', ...next.headers });
      res.end(next.body);
    });
  });
  afterAll(() => close(srv.server));

  test('every request names the key the kit verifies with in Wechatpay-Serial, GET and POST alike (wechatpay-go core/client.go)', async () => {
    next = { status: 200, body: '{}', signed: true };
    const client = new V3Client({ baseUrl: srv.url, signer, timeoutMs: 5000, clock: systemClock }, keys);
    await client.call({ method: 'GET', path: '/v3/pay/partner/transactions/out-trade-no/T1?sp_mchid=1', repeatable: true });
    await client.call({ method: 'POST', path: '/v3/pay/partner/transactions/native', body: { a: 1 }, repeatable: true });
    // A request with a name encrypted to a key names that key.
    await client.call({ method: 'POST', path: '/v3/profitsharing/receivers/add', body: {}, repeatable: true, platformSerial: 'PUB_KEY_ID_OTHER' });
    // A file download too (wechatpay-java AbstractHttpClient.download).
    await client.download(`${srv.url}/v3/billdownload/file?token=t`);
    expect(seen.splice(0)).toEqual([
      { method: 'GET', serial: PUB_KEY_ID },
      { method: 'POST', serial: PUB_KEY_ID },
      { method: 'POST', serial: 'PUB_KEY_ID_OTHER' },
      { method: 'GET', serial: PUB_KEY_ID },
    ]);
  });

  test('an error answer is read unverified for its code, never as a success; SYSTEM_ERROR, 429 and 5xx ask for the same call later', async () => {
    const log = recordingLog();
    const client = new V3Client({ baseUrl: srv.url, signer, timeoutMs: 5000, clock: systemClock, log }, keys);
    const call = () => client.call({ method: 'POST', path: '/v3/refund/domestic/refunds', body: { out_refund_no: 'R1' }, repeatable: true });

    // An unsigned 400 is the platform's refusal, code and message readable.
    next = { status: 400, body: JSON.stringify({ code: 'PARAM_ERROR', message: 'out_refund_no is bad' }), signed: false };
    expect(await call()).toMatchObject({ status: 400, body: { code: 'PARAM_ERROR', message: 'out_refund_no is bad' }, requestId: 'RID-UNSIGNED' });
    expect(log.lines.at(-1)).toEqual([
      'payment platform error answer',
      expect.objectContaining({ status: 400, code: 'PARAM_ERROR', signed: false, retryable: false }),
    ]);

    // An unsigned 2xx is still refused.
    next = { status: 200, body: JSON.stringify({ status: 'SUCCESS' }), signed: false };
    await expect(call()).rejects.toMatchObject({ error: 'channel_error', message: expect.stringMatching(/Wechatpay-Timestamp/) });

    // Unsigned 500 SYSTEM_ERROR: 503 channel_unavailable, the code in the message, Retry-After.
    next = { status: 500, body: JSON.stringify({ code: 'SYSTEM_ERROR', message: '系统繁忙' }), signed: false };
    await expect(call()).rejects.toMatchObject({
      error: 'channel_unavailable',
      message: expect.stringMatching(/HTTP 500 SYSTEM_ERROR 系统繁忙 \(Request-ID RID-UNSIGNED\)/),
      details: { retryAfterSeconds: 5 },
    });
    // A signed 429 with the platform's own Retry-After.
    next = { status: 429, body: JSON.stringify({ code: 'FREQUENCY_LIMITED', message: 'slow down' }), signed: true, headers: { 'retry-after': '7' } };
    await expect(call()).rejects.toMatchObject({
      error: 'channel_unavailable',
      message: expect.stringMatching(/FREQUENCY_LIMITED/),
      details: { retryAfterSeconds: 7 },
    });
    // SYSTEM_ERROR on a 4xx too; a 502 without a body.
    next = { status: 400, body: JSON.stringify({ code: 'SYSTEM_ERROR', message: 'retry' }), signed: true };
    await expect(call()).rejects.toMatchObject({ error: 'channel_unavailable' });
    next = { status: 502, body: '', signed: false };
    await expect(call()).rejects.toMatchObject({ error: 'channel_unavailable', message: expect.stringMatching(/HTTP 502 HTTP 502/) });
  });

  test('a main gateway that accepts and never answers: repeatable calls go to the backup within the time limit, others are not repeated', async () => {
    const sockets = new Set<Socket>();
    const silent = createNetServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    next = { status: 200, body: JSON.stringify({ from: 'backup' }), signed: true };
    try {
      const client = new V3Client(
        { baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, backupUrl: srv.url, signer, timeoutMs: 1500, clock: systemClock },
        keys,
      );
      seen.splice(0);
      expect((await client.call({ method: 'GET', path: '/v3/q', repeatable: true })).body).toEqual({ from: 'backup' });
      await expect(client.call({ method: 'POST', path: '/v3/once', body: {}, repeatable: false })).rejects.toMatchObject({
        error: 'channel_unavailable',
        message: expect.stringMatching(/no answer within PAY_GATEWAY_TIMEOUT/),
      });
      // The backup got the repeatable call only.
      expect(seen.map((c) => c.method)).toEqual(['GET']);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe('public-key mode with a merchant in the middle of the switch (wechatpay-java AbstractVerifier with both keys)', () => {
  const certKey = createPrivateKey(GO_PRIVATE_KEY);
  const certSerial = GO_NOTIFICATION.headers.serial;
  let certificates: 'listed' | 'none' = 'listed';
  let signWith: 'public-key' | 'certificate' = 'certificate';
  /** Which key signs the certificate list: the certificate it carries, or the public key when the request names it. */
  let listSignedWith: 'public-key' | 'certificate' = 'certificate';
  let srv: Awaited<ReturnType<typeof platformServer>>;
  const clock = Date.now() + 2000;

  beforeAll(async () => {
    srv = await platformServer((req, _body, res) => {
      if (req.url === '/v3/certificates') {
        if (certificates === 'none')
          return signedAnswer(res, 404, JSON.stringify({ code: 'RESOURCE_NOT_EXISTS', message: '证书不存在' }), platform.privateKey, PUB_KEY_ID);
        const nonce = Formatter.nonce(12);
        const data = [
          {
            serial_no: certSerial,
            effective_time: '2021-04-27T16:55:23+08:00',
            expire_time: '2031-04-25T16:55:23+08:00',
            encrypt_certificate: {
              algorithm: 'AEAD_AES_256_GCM',
              nonce,
              associated_data: 'certificate',
              ciphertext: Aes.AesGcm.encrypt(GO_NOTIFICATION.certificate, apiV3Key, nonce, 'certificate'),
            },
          },
        ];
        if (listSignedWith === 'public-key' && req.headers['wechatpay-serial'] === PUB_KEY_ID)
          return signedAnswer(res, 200, JSON.stringify({ data }), platform.privateKey, PUB_KEY_ID, {}, clock);
        return signedAnswer(res, 200, JSON.stringify({ data }), certKey, certSerial, {}, clock);
      }
      if (signWith === 'public-key') return signedAnswer(res, 200, JSON.stringify({ ok: 1 }), platform.privateKey, PUB_KEY_ID, {}, clock);
      signedAnswer(res, 200, JSON.stringify({ ok: 1 }), certKey, certSerial, {}, clock);
    });
  });
  afterAll(() => close(srv.server));

  const kit = () => {
    let clockNow = clock;
    const source: PublicKeySource = new PublicKeySource(
      PUB_KEY_ID,
      platform.publicKey,
      () => clockNow,
      new CertificateSource(
        () => client,
        apiV3Key,
        () => clockNow,
        { id: PUB_KEY_ID, publicKey: platform.publicKey },
      ),
    );
    const client = new V3Client({ baseUrl: srv.url, signer, timeoutMs: 5000, clock: systemClock }, source);
    return { client, tick: (ms: number) => (clockNow += ms) };
  };
  const fetches = () => srv.calls.filter((c) => c.startsWith('GET /v3/certificates')).length;

  test('an answer signed with the certificate fetches /v3/certificates once and verifies; the public key needs nothing', async () => {
    certificates = 'listed';
    const { client } = kit();
    const before = fetches();
    signWith = 'public-key';
    await client.call({ method: 'GET', path: '/v3/a', repeatable: true });
    expect(fetches()).toBe(before);
    signWith = 'certificate';
    expect((await client.call({ method: 'GET', path: '/v3/b', repeatable: true })).body).toEqual({ ok: 1 });
    await client.call({ method: 'GET', path: '/v3/c', repeatable: true });
    signWith = 'public-key';
    await client.call({ method: 'GET', path: '/v3/d', repeatable: true });
    expect(fetches()).toBe(before + 1);
  });

  test('a certificate list signed with the public key the request named is taken, and verifies what the certificate signs', async () => {
    certificates = 'listed';
    listSignedWith = 'public-key';
    try {
      const { client } = kit();
      const before = fetches();
      signWith = 'certificate';
      expect((await client.call({ method: 'GET', path: '/v3/h', repeatable: true })).body).toEqual({ ok: 1 });
      expect(fetches()).toBe(before + 1);
    } finally {
      listSignedWith = 'certificate';
    }
  });

  test('a merchant who never had certificates (404): the answer is refused as an unknown serial, and not fetched again within the minute', async () => {
    certificates = 'none';
    signWith = 'certificate';
    const { client, tick } = kit();
    const before = fetches();
    const refused = { error: 'channel_error', message: expect.stringMatching(/no platform key with serial D7CE59D1F522D701.*HTTP 404/) };
    await expect(client.call({ method: 'GET', path: '/v3/e', repeatable: true })).rejects.toMatchObject(refused);
    await expect(client.call({ method: 'GET', path: '/v3/f', repeatable: true })).rejects.toMatchObject({ error: 'channel_error' });
    expect(fetches()).toBe(before + 1);
    tick(61_000);
    certificates = 'listed';
    expect((await client.call({ method: 'GET', path: '/v3/g', repeatable: true })).body).toEqual({ ok: 1 });
    expect(fetches()).toBe(before + 2);
  });
});

describe('certificate mode', () => {
  let dir = '';
  let second = { pem: '', key: createPrivateKey(GO_PRIVATE_KEY), serial: '' };
  let listed: Array<{ pem: string }> = [];
  let signWith = { key: createPrivateKey(GO_PRIVATE_KEY), serial: GO_NOTIFICATION.headers.serial };
  let platformSrv: Awaited<ReturnType<typeof platformServer>>;
  let clock = Date.now();
  /** While set, the platform holds its answers to `/v3/certificates` here, to be answered when the test says. */
  let heldLists: Array<() => void> | null = null;

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
        const answer = () => signedAnswer(res, 200, JSON.stringify({ data }), signWith.key, signWith.serial, {}, clock);
        return heldLists ? void heldLists.push(answer) : answer();
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
    const client = new V3Client({ baseUrl: platformSrv.url, signer, timeoutMs: 5000, clock: systemClock }, source);
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

  /** A kit that has downloaded the first certificate (listed alone, signing everything). */
  const kitHoldingTheFirst = async () => {
    listed = [{ pem: GO_NOTIFICATION.certificate }];
    signWith = { key: createPrivateKey(GO_PRIVATE_KEY), serial: GO_NOTIFICATION.headers.serial };
    const source: CertificateSource = new CertificateSource(
      () => client,
      apiV3Key,
      () => clock,
    );
    const client = new V3Client({ baseUrl: platformSrv.url, signer, timeoutMs: 5000, clock: systemClock }, source);
    await client.call({ method: 'GET', path: '/v3/a', repeatable: true });
    return { source, client };
  };

  test('a list signed by the certificate held before, which it no longer lists, is taken (the APIv3 key vouches for what it carries); an empty one is not', async () => {
    const { source, client } = await kitHoldingTheFirst();
    expect(source.ring.ids()).toEqual(['D7CE59D1F522D701']);
    // The platform moved to the new certificate alone, and still signs the list with the old one.
    listed = [{ pem: second.pem }];
    await source.refresh();
    expect(source.ring.ids()).toEqual(['5D2E0A1B3C4D5E6F']);
    signWith = { key: second.key, serial: second.serial };
    expect((await client.call({ method: 'GET', path: '/v3/b', repeatable: true })).body).toEqual({ ok: true });
    // An empty list, however signed, replaces nothing held.
    listed = [];
    await expect(source.refresh()).rejects.toMatchObject({ error: 'channel_error', message: expect.stringMatching(/listed no valid certificate/) });
    expect(source.ring.ids()).toEqual(['5D2E0A1B3C4D5E6F']);
  });

  test('answers signed by a new certificate arriving together: the later ones wait for the download the first started', async () => {
    const { client } = await kitHoldingTheFirst();
    const fetches = () => platformSrv.calls.filter((c) => c.startsWith('GET /v3/certificates')).length;
    const before = fetches();

    listed = [{ pem: GO_NOTIFICATION.certificate }, { pem: second.pem }];
    signWith = { key: second.key, serial: second.serial };
    // The list is held until all three calls have been answered: each meets the new certificate while the first download is under way.
    const held: Array<() => void> = (heldLists = []);
    try {
      const calls = Promise.all(['/v3/b', '/v3/c', '/v3/d'].map((path) => client.call({ method: 'GET', path, repeatable: true })));
      await waitFor(
        () => held.length > 0 && ['/v3/b', '/v3/c', '/v3/d'].every((p) => platformSrv.calls.some((c) => c.startsWith(`GET ${p} `))),
        'three calls and a download',
      );
      heldLists = null;
      for (const answer of held.splice(0)) answer();
      expect((await calls).map((a) => a.body)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    } finally {
      heldLists = null;
      for (const answer of held.splice(0)) answer();
    }
    expect(fetches()).toBe(before + 1);
  });

  test('a certificate list under another APIv3 key, or not signed by a listed certificate, is refused', async () => {
    const wrongKey: CertificateSource = new CertificateSource(
      (): V3Client => new V3Client({ baseUrl: platformSrv.url, signer, timeoutMs: 5000, clock: systemClock }, wrongKey),
      'k'.repeat(32),
      () => clock,
    );
    await expect(wrongKey.encryptionKey()).rejects.toMatchObject({ error: 'channel_error', message: expect.stringMatching(/does not decrypt/) });
    listed = [{ pem: GO_NOTIFICATION.certificate }];
    signWith = { key: second.key, serial: second.serial };
    const unsigned: CertificateSource = new CertificateSource(
      (): V3Client => new V3Client({ baseUrl: platformSrv.url, signer, timeoutMs: 5000, clock: systemClock }, unsigned),
      apiV3Key,
      () => clock,
    );
    await expect(unsigned.encryptionKey()).rejects.toMatchObject({
      error: 'channel_error',
      message: expect.stringMatching(/no platform key with serial 5D2E0A1B3C4D5E6F/),
    });
  });
});
