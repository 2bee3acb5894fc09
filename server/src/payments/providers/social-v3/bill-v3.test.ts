/**
 * The v3 trade bill over real HTTP against a platform written with wechatpay-axios-plugin's helpers:
 * the bill query is signed and its answer verified, the download is signed and checked against the
 * SHA1 over the uncompressed file; no statement, a bill being made, a wrong hash and a file cut short
 * in transfer each give their answer or a clear channel error.
 */
import { systemClock } from '@kit/shared/clock';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Formatter, Rsa } from 'wechatpay-axios-plugin';
import { V3Client } from './client';
import { PublicKeySource } from './platform-key-source';
import { parseAuthorization } from './sign';
import { billsV3 } from './bill-v3';
import { formatTradeBill, parseTradeBill } from './trade-bill';

const merchantKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUB_KEY_ID = 'PUB_KEY_ID_0119000000012025010100000000000002';

const BILL = formatTradeBill([
  {
    kind: 'payment',
    time: '2026-11-23 10:00:00',
    appId: 'wx8888888888888888',
    mchId: '1900000001',
    subMchId: '1900000109',
    transactionId: '4200000985202611231234567890',
    outTradeNo: 'T20261123A',
    tradeType: 'NATIVE',
    tradeState: 'SUCCESS',
    refundId: null,
    outRefundNo: null,
    refundState: null,
    amountCents: 1234,
    feeUnits: 7404,
    body: '咖啡',
  },
]);

describe('SocialNative v3 trade bill', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ url: string; signed: boolean }> = [];
  /** What the platform does next: the bill, or a failure. */
  let mode: 'bill' | 'none' | 'creating' | 'bad_hash' | 'cut' = 'bill';

  const signedJson = (res: import('node:http').ServerResponse, status: number, body: object) => {
    const out = JSON.stringify(body);
    const ts = String(Formatter.timestamp());
    const nonce = Formatter.nonce();
    res.writeHead(status, {
      'content-type': 'application/json',
      'request-id': 'RID-7',
      'wechatpay-timestamp': ts,
      'wechatpay-nonce': nonce,
      'wechatpay-serial': PUB_KEY_ID,
      'wechatpay-signature': Rsa.sign(Formatter.response(ts, nonce, out), platform.privateKey),
    });
    res.end(out);
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const parts = parseAuthorization(req.headers.authorization);
      const signed =
        !!parts && Rsa.verify(Formatter.request(req.method!, req.url!, parts.timestamp, parts.nonce_str, ''), parts.signature, merchantKeys.publicKey);
      seen.push({ url: req.url!, signed });
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/v3/bill/tradebill') {
        if (mode === 'none') return signedJson(res, 400, { code: 'NO_STATEMENT_EXIST', message: 'no statement for this day' });
        if (mode === 'creating') return signedJson(res, 400, { code: 'STATEMENT_CREATING', message: 'the statement is being made' });
        const hash = createHash('sha1')
          .update(mode === 'bad_hash' ? `${BILL}x` : BILL)
          .digest('hex');
        return signedJson(res, 200, {
          hash_type: 'SHA1',
          hash_value: hash,
          download_url: `${base}/v3/billdownload/file?token=tok-${url.searchParams.get('bill_date')}`,
        });
      }
      if (url.pathname === '/v3/billdownload/file') {
        // The file's answer is not signed.
        const gz = gzipSync(BILL);
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'request-id': 'RID-8' });
        return res.end(mode === 'cut' ? gz.subarray(0, gz.length >> 1) : gz);
      }
      signedJson(res, 404, { code: 'NOT_FOUND', message: 'no such endpoint' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const bills = () => {
    const client = new V3Client(
      { baseUrl: base, signer: { mchid: '1900000001', serial: 'ABCDEF0123456789', privateKey: merchantKeys.privateKey }, timeoutMs: 5000, clock: systemClock },
      new PublicKeySource(PUB_KEY_ID, platform.publicKey, Date.now),
    );
    return billsV3(() => client);
  };

  test('downloads the GZIP bill, checks its hash over the uncompressed file, and reads it', async () => {
    mode = 'bill';
    seen.length = 0;
    const got = await bills().download('2026-11-23');
    expect(got).toEqual({ kind: 'bill', text: BILL });
    expect(parseTradeBill((got as { text: string }).text).lines[0]).toMatchObject({ outTradeNo: 'T20261123A', amountCents: 1234 });
    expect(seen.map((s) => s.url)).toEqual([
      '/v3/bill/tradebill?bill_date=2026-11-23&bill_type=ALL&tar_type=GZIP',
      '/v3/billdownload/file?token=tok-2026-11-23',
    ]);
    expect(seen.every((s) => s.signed)).toBe(true);
  });

  test('no statement is an answer, a bill being made is not ready', async () => {
    mode = 'none';
    expect(await bills().download('2026-11-22')).toEqual({ kind: 'none' });
    mode = 'creating';
    expect(await bills().download('2026-11-22')).toEqual({ kind: 'not_ready', why: 'STATEMENT_CREATING' });
  });

  test('a wrong hash or a file cut short in transfer is a channel error', async () => {
    mode = 'bad_hash';
    await expect(bills().download('2026-11-23')).rejects.toMatchObject({ error: 'channel_error', message: expect.stringMatching(/does not match its hash/) });
    mode = 'cut';
    await expect(bills().download('2026-11-23')).rejects.toMatchObject({ error: 'channel_error', message: expect.stringMatching(/does not decompress/) });
  });
});
