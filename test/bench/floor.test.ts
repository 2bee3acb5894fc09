/**
 * The notification floor the bench measures beside the service (lib/floor.ts): it takes the bench's
 * own v3 notification, refuses one whose body was changed, and answers only once its callback,
 * signed as the kit signs, was accepted by a receiver that verifies it with the shared verifier.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { verifyCallback, type CallbackEvent } from '@kit/shared';
import { protocolSettings } from './lib/fleet';
import { startFloor } from './lib/floor';
import { payNotification } from './lib/notifications';
import { TEST_ORDER } from './test-order';
import { requestBuilder, SignatureClock } from './lib/requests';

const creds = { appId: 'app_floor', appSecret: 'floor-secret-0123456789abcdef' };
const order = TEST_ORDER;

describe('the notification floor', () => {
  let dir: string;
  let receiver: http.Server;
  let callbackUrl: string;
  const events: CallbackEvent[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-floor-'));
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          events.push(verifyCallback({ method: req.method, url: req.url!, rawBody: Buffer.concat(chunks) }, creds.appSecret, { appId: creds.appId }));
          res.end('OK');
        } catch {
          res.writeHead(400).end('bad signature');
        }
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/kit-callback`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('verifies and decrypts a v3 notification, and answers 204 once its signed callback was accepted', async () => {
    const { platform } = protocolSettings('v3', dir);
    const floor = await startFloor({ platform, callbackUrl, creds, subMerchantId: 'SM1', merchantId: 'PM1' });
    try {
      const n = payNotification(platform, order, 'floor');
      const send = (body: string) => fetch(`${floor.url}/floor`, { method: 'POST', headers: n.headers, body });
      expect((await send(n.body)).status).toBe(204);
      expect(events).toEqual([expect.objectContaining({ prepayId: order.outTradeNo, status: 'finish', subMerchantId: 'SM1', merchantId: 'PM1' })]);

      const refused = await send(n.body.replace('TRANSACTION.SUCCESS', 'TRANSACTION.SUCCESS '));
      expect(refused.status).toBe(401);
      expect(events).toHaveLength(1);
    } finally {
      await floor.close();
    }
  });

  it('is loaded with the same request every time', () => {
    const request = { method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: '{}' };
    const build = requestBuilder({ kind: 'fixed', request }, creds, new SignatureClock(0, 1));
    expect([build(0), build(1)]).toEqual([request, request]);
  });
});
