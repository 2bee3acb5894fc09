/**
 * The floor of a payment notification with its callback: what any service must do for one, without
 * the kit's rules and without a database. In its own process like the service, the same Express (5)
 * and keep-alive setting as the bare route: `POST /floor` takes an API v3 notification, verifies its
 * `Wechatpay-Signature` and decrypts its resource with the kit's own functions, signs the merchant's
 * callback as the kit does and POSTs it to the bench's receiver with the kit's client, and answers
 * 204 once the receiver said `OK`. Left out: the time window, replay guard, zod and everything
 * stored. The notifications scenario measures it in the same run as the service, so that the
 * service's ratio to the bare route can be read against what the protocol alone costs.
 */
import { systemClock } from '@kit/shared/clock';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { signCallbackUrl } from '@kit/shared';
import { aeadDecrypt, type EncryptedResource } from '../../../server/src/payments/providers/social-v3/aead';
import { signedHeaders, verifyPlatformSignature } from '../../../server/src/payments/providers/social-v3/verify';
import { post } from '../../../server/src/http/post-client';
import type { Creds } from './requests';
import { platformKeyring, type PlatformSide } from './notifications';

export interface FloorArgs {
  platform: PlatformSide;
  /** The receiver's callback URL and the app it checks callbacks against. */
  callbackUrl: string;
  creds: Creds;
  /** The callback's merchants (the receiver checks the body's shape). */
  subMerchantId: string;
  merchantId: string;
}

/** Starts the floor on a free loopback port. */
export async function startFloor(a: FloorArgs): Promise<{ url: string; close: () => Promise<void> }> {
  const v3 = a.platform.v3;
  if (!v3) throw new Error('the floor speaks API v3 only');
  const keys = platformKeyring(v3);
  const app = express();
  app.post('/floor', express.raw({ type: '*/*' }), async (req, res) => {
    const body = (req.body as Buffer).toString('utf8');
    const verified = verifyPlatformSignature(
      signedHeaders((name) => req.get(name)),
      body,
      keys,
      Date.now(),
    );
    if (!verified.ok) return void res.status(401).json({ code: 'SIGN_ERROR', message: verified.message });
    const resource = (JSON.parse(body) as { resource: EncryptedResource }).resource;
    const transaction = JSON.parse(aeadDecrypt(resource, v3.apiV3Key)) as { out_trade_no: string };
    const at = Date.now();
    const callback = JSON.stringify({
      notifyTime: new Date(at).toISOString(),
      prepayId: transaction.out_trade_no.slice(0, 64),
      status: 'finish',
      subMerchantId: a.subMerchantId,
      merchantId: a.merchantId,
    });
    const answer = await post(signCallbackUrl(a.callbackUrl, callback, a.creds, at), callback, {
      headers: { 'content-type': 'application/json', 'user-agent': 'merchant-kit-callback/1' },
      timeoutMs: 10_000,
      clock: systemClock,
      maxBytes: 4096,
    });
    if (answer.head.trim() !== 'OK') return void res.status(500).json({ code: 'FAIL', message: `callback answered ${answer.status}` });
    res.status(204).end();
  });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
