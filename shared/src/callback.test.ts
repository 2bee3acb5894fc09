/** The merchant-side callback verifier and handler, against callbacks built the way the service builds them. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { CallbackVerificationError, callbackHandler, verifyCallback } from './callback';
import type { CallbackEvent } from './api/payment';
import { generateTestCallback } from './callback-testing';
import { waitFor } from '../../server/test/support/wait';

const creds = { appId: 'app_merchant', appSecret: 'merchant-app-secret' };
const URL_ = 'https://shop.example.com/hooks/kit?shop=1&note=a%20b';

const reason = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof CallbackVerificationError) return e.reason;
    throw e;
  }
  return 'accepted';
};

describe('verifyCallback', () => {
  test('accepts a callback as the service signs it, in every way of naming the target', () => {
    const cb = generateTestCallback({ url: URL_, ...creds, event: { prepayId: 'Abc123', status: 'refunded' } });
    const expected: Partial<CallbackEvent> = { prepayId: 'Abc123', status: 'refunded', subMerchantId: 'SMtest000001', merchantId: 'PMtest000001' };
    expect(verifyCallback({ method: 'POST', url: cb.url, rawBody: cb.body }, creds.appSecret)).toMatchObject(expected);
    expect(verifyCallback({ method: 'POST', url: cb.target, rawBody: Buffer.from(cb.body) }, creds.appSecret)).toMatchObject(expected);
    expect(verifyCallback({ path: cb.path, query: cb.rawQuery, rawBody: cb.body }, creds.appSecret, { appId: creds.appId })).toMatchObject(expected);
    // The URL's own query fields are kept and signed.
    expect(cb.rawQuery).toMatch(/^shop=1&note=a%20b&_appid=app_merchant&_t=\d{13}&_s=[0-9a-f]{64}$/);
  });

  test('refuses tampering, the wrong secret or app, and stale times', () => {
    const cb = generateTestCallback({ url: URL_, ...creds });
    expect(reason(() => verifyCallback({ url: cb.url, rawBody: cb.body.replace('finish', 'refunded') }, creds.appSecret))).toBe('signature_mismatch');
    expect(reason(() => verifyCallback({ url: cb.url.replace('shop=1', 'shop=2'), rawBody: cb.body }, creds.appSecret))).toBe('signature_mismatch');
    expect(reason(() => verifyCallback({ url: cb.url.replace('/hooks/kit', '/hooks/other'), rawBody: cb.body }, creds.appSecret))).toBe('signature_mismatch');
    expect(reason(() => verifyCallback({ method: 'PUT', url: cb.url, rawBody: cb.body }, creds.appSecret))).toBe('signature_mismatch');
    expect(reason(() => verifyCallback({ url: cb.url, rawBody: cb.body }, 'another-secret'))).toBe('signature_mismatch');
    expect(reason(() => verifyCallback({ url: cb.url, rawBody: cb.body }, creds.appSecret, { appId: 'app_other' }))).toBe('app_mismatch');
    expect(reason(() => verifyCallback({ url: URL_, rawBody: cb.body }, creds.appSecret))).toBe('signature_missing');
    const old = generateTestCallback({ url: URL_, ...creds, t: Date.now() - 181_000 });
    expect(reason(() => verifyCallback({ url: old.url, rawBody: old.body }, creds.appSecret))).toBe('timestamp_out_of_window');
    // A fresh signature over an old notifyTime is refused too.
    const replayed = generateTestCallback({ url: URL_, ...creds, event: { notifyTime: new Date(Date.now() - 200_000).toISOString() } });
    expect(reason(() => verifyCallback({ url: replayed.url, rawBody: replayed.body }, creds.appSecret))).toBe('notify_time_out_of_window');
    // Within a wider tolerance it passes.
    expect(verifyCallback({ url: replayed.url, rawBody: replayed.body }, creds.appSecret, { toleranceMs: 300_000 }).status).toBe('finish');
  });

  test('refuses a signed body that is not a callback event', () => {
    const cb = generateTestCallback({ url: URL_, ...creds, event: { status: 'paid' as never } });
    expect(reason(() => verifyCallback({ url: cb.url, rawBody: cb.body }, creds.appSecret))).toBe('invalid_body');
  });
});

describe('callbackHandler', () => {
  let server: http.Server;
  let base: string;
  const events: CallbackEvent[] = [];
  let failNext = false;
  let slow: Promise<void> | undefined;
  /** Deliveries that reached the route, and runs of the merchant's handler begun. */
  let arrived = 0;
  let entered = 0;

  beforeAll(async () => {
    const app = express();
    const onEvent = async (e: CallbackEvent) => {
      entered++;
      if (slow) await slow;
      if (failNext) {
        failNext = false;
        throw new Error('database down');
      }
      events.push(e);
    };
    app.use('/hooks/kit', (_req, _res, next) => {
      arrived++;
      next();
    });
    app.post('/hooks/kit', callbackHandler({ appSecret: creds.appSecret, appId: creds.appId, onEvent }));
    app.post('/raw/hook', express.raw({ type: '*/*' }), callbackHandler({ appSecret: creds.appSecret, onEvent }));
    app.post('/parsed/hook', express.json(), callbackHandler({ appSecret: creds.appSecret, onEvent }));
    app.use(((err, _req, res, _next) => res.status(500).send(`${err.name}: ${err.message}`)) as express.ErrorRequestHandler);
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    events.length = 0;
  });

  const send = async (path: string, event: Partial<CallbackEvent>, secret = creds.appSecret) => {
    const cb = generateTestCallback({ url: `${base}${path}?shop=1`, appId: creds.appId, appSecret: secret, event });
    const res = await fetch(cb.url, { method: 'POST', headers: cb.headers, body: cb.body });
    return { status: res.status, text: await res.text() };
  };

  test('answers OK and hands each event to the merchant once, however often it arrives', async () => {
    expect(await send('/hooks/kit', { prepayId: 'Once1' })).toEqual({ status: 200, text: 'OK' });
    expect(await send('/hooks/kit', { prepayId: 'Once1' })).toEqual({ status: 200, text: 'OK' });
    // The second delivery arrives while the first is still in the merchant's handler: both are answered once it ends.
    let release!: () => void;
    slow = new Promise<void>((r) => (release = r));
    const [arrivedBefore, enteredBefore] = [arrived, entered];
    const first = send('/hooks/kit', { prepayId: 'Once2' });
    await waitFor(() => entered === enteredBefore + 1, 'the first delivery in the handler');
    const second = send('/hooks/kit', { prepayId: 'Once2' });
    await waitFor(() => arrived === arrivedBefore + 2, 'the second delivery arrived');
    release();
    expect((await Promise.all([first, second])).map((a) => a.text)).toEqual(['OK', 'OK']);
    slow = undefined;
    expect(await send('/hooks/kit', { prepayId: 'Once1', status: 'refunded' })).toEqual({ status: 200, text: 'OK' });
    expect(events.map((e) => `${e.prepayId}:${e.status}`)).toEqual(['Once1:finish', 'Once2:finish', 'Once1:refunded']);
  });

  test('a failing merchant handler answers 500 so the service retries, and runs again then', async () => {
    failNext = true;
    expect((await send('/hooks/kit', { prepayId: 'Retry1' })).status).toBe(500);
    expect(await send('/hooks/kit', { prepayId: 'Retry1' })).toEqual({ status: 200, text: 'OK' });
    expect(events.map((e) => e.prepayId)).toEqual(['Retry1']);
  });

  test('refuses a forged callback without calling the merchant', async () => {
    const res = await send('/hooks/kit', { prepayId: 'Forged1' }, 'wrong-secret');
    expect(res.status).toBe(401);
    expect(res.text).toMatch(/signature_mismatch/);
    expect(events).toHaveLength(0);
  });

  test('works behind express.raw, and says clearly when express.json already ate the body', async () => {
    expect(await send('/raw/hook', { prepayId: 'Raw1' })).toEqual({ status: 200, text: 'OK' });
    const parsed = await send('/parsed/hook', { prepayId: 'Parsed1' });
    expect(parsed.status).toBe(500);
    expect(parsed.text).toMatch(/CallbackBodyParsedError: .*express\.json/);
    expect(events.map((e) => e.prepayId)).toEqual(['Raw1']);
  });
});
