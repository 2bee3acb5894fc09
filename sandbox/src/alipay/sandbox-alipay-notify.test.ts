/**
 * The Alipay stand-in's notifications over real HTTP on loopback, as Alipay sends them: repeated on
 * the schedule while the receiver does not answer `success`, then duplicated after it does; lost
 * under `payNotifications: "drop"`; a refund call held by `refunds: "hold"` is never answered nor recorded.
 * The stand-in's clock is the test's (frozen): a repeat is sent when the test moves the clock to it,
 * and "no more" is seen by moving it well past the schedule with nothing left to send.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { TestClock } from '@kit/shared/test-clock';
import { AlipayClient, type AlipayTransport } from '@kit/server/payments/providers/alipay/client';
import { SandboxAlipay, type AlipayFaults } from './sandbox-alipay';

const APP_ID = '2021000122671090';
/** Waits (ms) between the repeats of a notification not answered `success`. */
const SCHEDULE = [50, 50, 50];
/** Well past the whole schedule: whatever would still be sent is due by then. */
const LONG_AFTER_MS = 60_000;
const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
const clock = new TestClock({ frozen: true });
let faults: AlipayFaults = { payNotifications: 'deliver', refundNotifications: 'deliver', refunds: 'answer' };
/** Sendings whose answer the stand-in has had (over real HTTP, as its default `post` sends them). */
let answered = 0;
/** Tests waiting for a number of answers, each told once the stand-in has acted on the last of them. */
let waiting: Array<{ n: number; resolve: () => void }> = [];
/** Tells the waiting tests whose number of answers has come, after the stand-in's own handling of the answer (microtasks before the next turn). */
const tellWaiting = () =>
  setImmediate(() => {
    waiting = waiting.filter((w) => (answered >= w.n ? (w.resolve(), false) : true));
  });
const sandbox = new SandboxAlipay({
  appId: APP_ID,
  appPublicKey: app.publicKey,
  faults: () => faults,
  duplicates: 1,
  retrySchedule: SCHEDULE,
  clock,
  post: async (url, body) => {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' }, body });
      return { status: res.status, text: await res.text() };
    } finally {
      answered++;
      tellWaiting();
    }
  },
});
const transport: AlipayTransport = async (url, init) => ({ status: 200, text: sandbox.gatewayRequest(new URL(url).search, init.body) ?? 'held' });
const client = new AlipayClient(
  {
    appId: APP_ID,
    privateKey: app.privateKey,
    trust: { mode: 'public-key', alipayPublicKey: sandbox.publicKey },
    gatewayUrl: 'http://sandbox.test/gateway.do',
  },
  { transport, clock },
);

/** The kit's notification endpoint: answers `fail` to the first `failures` posts, `success` after. */
let failures = 0;
const bodies: string[] = [];
let server: Server;
let notifyUrl: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.end(bodies.length <= failures ? 'fail' : 'success');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  notifyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay-notify/alipay`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  bodies.length = 0;
  failures = 0;
  answered = 0;
  faults = { payNotifications: 'deliver', refundNotifications: 'deliver', refunds: 'answer' };
});

const paid = async (outTradeNo: string) => {
  const { qrCode } = await client.precreate({
    appAuthToken: 'tok_notify',
    outTradeNo,
    totalCents: 100,
    subject: 'Shop',
    expireAt: clock.now() + 10 * 60_000,
    notifyUrl,
  });
  return sandbox.scanAndPay(qrCode, 'buyer_1');
};
/** Waits until `n` sendings have been answered and the stand-in has acted on the last answer (a repeat set, or duplicates sent). */
const answeredAll = async (n: number) => {
  await new Promise<void>((resolve) => {
    waiting.push({ n, resolve });
    tellWaiting();
  });
  await sandbox.idle();
};
/** Moves the clock to the schedule's next repeat (the `attempt`th sending) and waits until it has been answered. */
const repeat = async (attempt: number) => {
  clock.advance(SCHEDULE[attempt - 2]);
  expect(sandbox.notices.at(-1)?.attempt).toBe(attempt);
  await answeredAll(attempt);
};
/** The sendings so far, once the clock has moved well past the schedule: a repeat due by then has been sent. */
const sentLongAfter = () => {
  clock.advance(LONG_AFTER_MS);
  return sandbox.notices.length;
};

test('a notification not answered `success` is repeated on the schedule, and once acknowledged sent once more, the same each time', async () => {
  failures = 2;
  const before = sandbox.notices.length;
  await paid('N_RETRY_1');
  // The first answer `fail`, the first repeat `fail`, the second repeat `success`, then one duplicate.
  await answeredAll(1);
  // No repeat before its wait has passed.
  clock.advance(SCHEDULE[0] - 1);
  expect(sandbox.notices.length).toBe(before + 1);
  clock.advance(1);
  expect(sandbox.notices.at(-1)?.attempt).toBe(2);
  await answeredAll(2);
  await repeat(3);
  await answeredAll(4);
  expect(sentLongAfter()).toBe(before + 4);
  await sandbox.idle();
  expect(bodies).toHaveLength(4);
  expect(new Set(bodies).size).toBe(1);
  const mine = sandbox.notices.filter((n) => n.form.out_trade_no === 'N_RETRY_1');
  expect(mine.map((n) => [n.attempt, n.acknowledged])).toEqual([
    [1, false],
    [2, false],
    [3, true],
    [4, true],
  ]);
});

test('a receiver that never acknowledges gets the first sending and the whole schedule, no more', async () => {
  failures = 100;
  const before = sandbox.notices.length;
  await paid('N_RETRY_2');
  await answeredAll(1);
  for (const attempt of [2, 3, 4]) await repeat(attempt);
  expect(sentLongAfter()).toBe(before + 4);
  await sandbox.idle();
  expect(bodies).toHaveLength(4);
});

test('dropped notifications are never sent, nor repeated', async () => {
  faults = { ...faults, payNotifications: 'drop' };
  const before = sandbox.notices.length;
  await paid('N_DROP_1');
  await sandbox.idle();
  expect(sentLongAfter()).toBe(before);
  expect(answered).toBe(0);
  expect(bodies).toEqual([]);
  expect(sandbox.trade('tok_notify', 'N_DROP_1')?.status).toBe('TRADE_SUCCESS');
});

test('a held refund is never answered nor recorded; released, the same refund goes through once', async () => {
  await paid('N_HOLD_1');
  await sandbox.idle();
  faults = { ...faults, refunds: 'hold' };
  const refund = { appAuthToken: 'tok_notify', outTradeNo: 'N_HOLD_1', outRequestNo: 'R_HOLD_1', refundCents: 100 };
  await expect(client.refund(refund)).rejects.toThrow();
  expect(sandbox.trade('tok_notify', 'N_HOLD_1')?.refunds).toEqual([]);
  faults = { ...faults, refunds: 'answer' };
  await client.refund(refund);
  await client.refund(refund);
  expect(sandbox.trade('tok_notify', 'N_HOLD_1')).toMatchObject({ status: 'TRADE_CLOSED', refunds: [{ outRequestNo: 'R_HOLD_1', cents: 100 }] });
});
