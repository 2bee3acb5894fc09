/**
 * The Alipay stand-in's notifications over real HTTP on loopback, as Alipay sends them: repeated on
 * the schedule while the receiver does not answer `success`, then duplicated after it does; lost
 * under `payNotifications: "drop"`; a refund call held by `refunds: "hold"` is never answered nor recorded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { AlipayClient, type AlipayTransport } from '@kit/server/payments/providers/alipay/client';
import { SandboxAlipay, type AlipayFaults } from './sandbox-alipay';

const APP_ID = '2021000122671090';
const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
let faults: AlipayFaults = { payNotifications: 'deliver', refundNotifications: 'deliver', refunds: 'answer' };
const sandbox = new SandboxAlipay({ appId: APP_ID, appPublicKey: app.publicKey, faults: () => faults, duplicates: 1, retrySchedule: [50, 50, 50] });
const transport: AlipayTransport = async (url, init) => ({ status: 200, text: sandbox.gatewayRequest(new URL(url).search, init.body) ?? 'held' });
const client = new AlipayClient(
  {
    appId: APP_ID,
    privateKey: app.privateKey,
    trust: { mode: 'public-key', alipayPublicKey: sandbox.publicKey },
    gatewayUrl: 'http://sandbox.test/gateway.do',
  },
  { transport },
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
  faults = { payNotifications: 'deliver', refundNotifications: 'deliver', refunds: 'answer' };
});

const waitFor = async (ok: () => boolean, what: string) => {
  for (const until = Date.now() + 5_000; !ok();) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
const paid = async (outTradeNo: string) => {
  const { qrCode } = await client.precreate({
    appAuthToken: 'tok_notify',
    outTradeNo,
    totalCents: 100,
    subject: 'Shop',
    expireAt: Date.now() + 10 * 60_000,
    notifyUrl,
  });
  return sandbox.scanAndPay(qrCode, 'buyer_1');
};

test('a notification not answered `success` is repeated on the schedule, and once acknowledged sent once more, the same each time', async () => {
  failures = 2;
  await paid('N_RETRY_1');
  // The first answer `fail`, the first repeat `fail`, the second repeat `success`, then one duplicate.
  await waitFor(() => bodies.length === 4, 'three sendings and a duplicate');
  await sandbox.idle();
  await new Promise((r) => setTimeout(r, 200));
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
  await paid('N_RETRY_2');
  await waitFor(() => bodies.length === 4, 'the schedule');
  await new Promise((r) => setTimeout(r, 300));
  expect(bodies).toHaveLength(4);
});

test('dropped notifications are never sent, nor repeated', async () => {
  faults = { ...faults, payNotifications: 'drop' };
  await paid('N_DROP_1');
  await new Promise((r) => setTimeout(r, 300));
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
