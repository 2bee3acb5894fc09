/** Helpers for payment and callback API tests: merchants with channel parameters, the sandbox payer, a callback receiver. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey, verify } from 'node:crypto';
import { KitClient } from '@kit/shared';
import { signFields } from '../../src/payments/providers/protocol-v2/sign';
import { effectiveV3Settings } from '../../src/payments/providers/social-v3/v3-channel';
import { loadPrivateKey } from '../../src/payments/providers/social-v3/keys';
import { createMerchants, sandboxTables, type TestKit } from './kit';

export const SOCIAL_PARAMS = { socialAppId: 'wxmerchantapp0001', socialMchId: '1230000109' };

export interface PayFixture {
  appId: string;
  appSecret: string;
  client: KitClient;
  parentId: string;
  subId: string;
  pw: string;
}

/** An app with a parent and a sub-merchant; SocialNative parameters on the parent (inherited). */
export async function payFixture(kit: TestKit, params: Record<string, unknown> = {}, names?: { parent: string; sub: string }): Promise<PayFixture> {
  const app = await kit.newApp();
  const m = await createMerchants(app.client, app.appId, names);
  await app.client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, ...params });
  return { ...app, ...m };
}

/** A `payFixture` whose merchant takes Alipay too (its authorization `appAuthToken`), both wallets calling back to `notifyCallbackUrl`. */
export async function bothWalletsFixture(kit: TestKit, appAuthToken: string, notifyCallbackUrl: string): Promise<PayFixture> {
  const f = await payFixture(kit, { notifyCallbackUrl });
  await f.client.setPaymentParams(f.parentId, 'Alipay', { appAuthToken, notifyCallbackUrl });
  return f;
}

/** An order's channel order of one channel (a payer who switched wallets left one of each). */
export const channelOrderOf = async (kit: TestKit, prepayId: string, channel: string) =>
  (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.channel === channel)!;

export const newOrder = async (f: PayFixture, amount = '12.34') => (await f.client.createPrepay({ subMerchantId: f.subId, totalAmount: amount })).prepayId;

/** Raw answers of 4.3–4.6 for the tests of failure answers and exact shapes; the success path goes through the typed client. */
export const payApi = {
  native: (c: KitClient, prepayId: string) => c.call<any>('POST', '/submerchant-pay/socialPayNative', { body: { prepayId } }),
  mini: (c: KitClient, prepayId: string, openId: string) => c.call<any>('POST', '/submerchant-pay/socialPay', { body: { prepayId, openId } }),
  app: (c: KitClient, prepayId: string, enableProfitSharing?: boolean) =>
    c.call<any>('POST', '/submerchant-pay/socialPayApp', { body: enableProfitSharing === undefined ? { prepayId } : { prepayId, enableProfitSharing } }),
  refund: (c: KitClient, prepayId: string, loginToken: string) =>
    c.call<any>('POST', '/submerchant-pay/refund', { query: { loginToken }, body: { id: prepayId } }),
};

/** A client of the kit that keeps the last answer's headers (`Retry-After`). */
export function recordingClient(kit: TestKit, f: Pick<PayFixture, 'appId' | 'appSecret'>) {
  const seen: { headers?: Headers } = {};
  const client = new KitClient({
    baseUrl: kit.url,
    appId: f.appId,
    appSecret: f.appSecret,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      seen.headers = res.headers;
      return res;
    },
  });
  return { client, retryAfter: () => seen.headers?.get('retry-after') ?? null };
}

/** The payer side of the sandbox. */
export async function sandboxPost(kitUrl: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${kitUrl}/sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function sandboxOpenId(kitUrl: string, user: string, mp: { appid: string; secret: string }): Promise<string> {
  const { body } = await sandboxPost(kitUrl, '/login', { user });
  const q = new URLSearchParams({ appid: mp.appid, secret: mp.secret, js_code: body.code, grant_type: 'authorization_code' });
  const res = await fetch(`${kitUrl}/sandbox/sns/jscode2session?${q}`);
  return ((await res.json()) as { openid: string }).openid;
}

/** Pays a scan-code order through the sandbox: 4.3 then the payer "scans" the code. */
export async function payByCode(kit: TestKit, f: PayFixture, prepayId: string) {
  const { args } = await f.client.socialPayNative(prepayId);
  const paid = await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url });
  if (paid.status !== 200) throw new Error(`sandbox pay: ${JSON.stringify(paid.body)}`);
  return { codeUrl: args.code_url, transactionId: paid.body.transactionId as string };
}

export interface ReceivedCallback {
  url: string;
  body: string;
  at: number;
}

/** A local HTTP receiver; `respond` decides each answer (default 200 `OK`). */
export async function startReceiver(respond: (req: ReceivedCallback, n: number) => { status?: number; body?: string; hang?: boolean } = () => ({})) {
  const received: ReceivedCallback[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedCallback = { url: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const a = respond(r, received.length);
      if (a.hang) return;
      res.writeHead(a.status ?? 200, { 'content-type': 'text/plain' });
      res.end(a.body ?? 'OK');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Checks a payer-argument signature as the payer's app checks it, written out here rather than
 * taken from the kit: on API v3 SHA256-with-RSA by the merchant's key over the fields one per line
 * (`appId\ntimeStamp\nnonceStr\npackage\n`, app: `appid\ntimestamp\nnoncestr\nprepayid\n`); on
 * protocol v2 the channel key's `signFields` over the named fields with their sign type.
 */
export function payerSignatureValid(kit: TestKit, kind: 'mini' | 'app', args: Record<string, unknown>, appId: string): boolean {
  // The settings the providers were built with: a played platform's handed keys among them.
  const config = kit.runtime.services.played.config;
  if (config.PAY_PROTOCOL === 'v3') {
    const key = createPublicKey(loadPrivateKey(effectiveV3Settings(config)!.PAY_SP_PRIVATE_KEY!));
    const parts = kind === 'mini' ? [appId, args.timeStamp, args.nonceStr, args.package] : [args.appid, args.timestamp, args.noncestr, args.prepayid];
    const message = parts.map((p) => `${String(p)}\n`).join('');
    const signature = String(kind === 'mini' ? args.paySign : args.sign);
    return args.signType !== undefined && args.signType !== 'RSA' ? false : verify('sha256', Buffer.from(message), key, Buffer.from(signature, 'base64'));
  }
  if (kind === 'mini') {
    const { paySign, ...rest } = args;
    return (
      paySign ===
      signFields({ appId, ...(rest as Record<string, string>) }, (config as { PAY_SP_KEY?: string }).PAY_SP_KEY!, rest.signType as 'MD5' | 'HMAC-SHA256')
    );
  }
  const { sign, ...rest } = args;
  return sign === signFields(rest as Record<string, string>, (config as { PAY_SP_KEY?: string }).PAY_SP_KEY!, 'HMAC-SHA256');
}

/**
 * The sandbox's id of a channel order (its `sandbox_orders.prepay_id`, which keys its refunds,
 * notifications and splits): the channel prepay id, or on API v3 scan-code orders, which have none,
 * the sandbox's own looked up by `out_trade_no`.
 */
export async function sandboxPrepayId(kit: TestKit, co: { out_trade_no: string; channel_prepay_id: string | null }): Promise<string> {
  if (co.channel_prepay_id) return co.channel_prepay_id;
  const row = await sandboxTables(kit).selectFrom('sandbox_orders').select('prepay_id').where('out_trade_no', '=', co.out_trade_no).executeTakeFirstOrThrow();
  return row.prepay_id;
}

/** The job of a queue with this key, as its worker left it (what the tests check of background work). */
export function jobByKey(kit: TestKit, queue: string, key: string) {
  return kit.runtime.services.jobs.store.db.selectFrom('jobs').selectAll().where('queue', '=', queue).where('key', '=', key).executeTakeFirst();
}
