/**
 * Load process playing a merchant backend with the shared `KitClient`: creates prepay orders (with
 * their scan-code payment, so a channel order exists to be paid), and measures chain uploads until
 * confirmed.
 */
import { KitClient, type NativePayResponse } from '@kit/shared';
import { now, serve, sleep } from '../lib/rpc';
import type { Creds } from '../lib/requests';

const clients = new Map<string, KitClient>();
function client(url: string, creds: Creds): KitClient {
  const key = `${url} ${creds.appId}`;
  let c = clients.get(key);
  if (!c) clients.set(key, (c = new KitClient({ baseUrl: url, ...creds })));
  return c;
}

/** Runs `count` tasks, `concurrency` at a time. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

serve({
  /** Creates orders of 1.00; with `native`, also their scan-code payment (4.3), whose `code_url` the sandbox payer pays. */
  async orders(a: { url: string; creds: Creds; subMerchantId: string; count: number; native: boolean; concurrency?: number }) {
    const c = client(a.url, a.creds);
    const out: Array<{ prepayId: string; codeUrl?: string }> = new Array(a.count);
    await pool(a.count, a.concurrency ?? 16, async (i) => {
      const { prepayId } = await c.createPrepay({ subMerchantId: a.subMerchantId, totalAmount: '1.00', extraInfo: { bench: `${process.pid}-${i}` } });
      let codeUrl: string | undefined;
      if (a.native)
        codeUrl = ((await c.expect('success', 'POST', '/submerchant-pay/socialPayNative', { body: { prepayId } })) as NativePayResponse).args.code_url;
      out[i] = { prepayId, codeUrl };
    });
    return out;
  },

  /** `calls` creations of 1.00 (4.1) with their scan-code payment, `concurrency` at a time: the orders and each creation's latency (ms). */
  async timedOrders(a: { url: string; creds: Creds; subMerchantId: string; count: number; concurrency: number }) {
    const c = client(a.url, a.creds);
    const orders: Array<{ prepayId: string }> = new Array(a.count);
    const ms = new Float64Array(a.count);
    await pool(a.count, a.concurrency, async (i) => {
      const t = now();
      const { prepayId } = await c.createPrepay({ subMerchantId: a.subMerchantId, totalAmount: '1.00', extraInfo: { soak: `${process.pid}-${i}` } });
      ms[i] = now() - t;
      await c.expect('success', 'POST', '/submerchant-pay/socialPayNative', { body: { prepayId } });
      orders[i] = { prepayId };
    });
    return { orders, ms };
  },

  /**
   * 4.6 refunds of paid orders, `concurrency` at a time, with the login token of `userId` (the
   * sub-merchant or its parent; logged in once per call, as a backend does per shift): each
   * refund's latency (ms) and the refunds not answered `success`.
   */
  async timedRefunds(a: { url: string; creds: Creds; userId: string; pw: string; ids: string[]; concurrency: number }) {
    const c = client(a.url, a.creds);
    const { loginToken } = await c.login(a.userId, a.pw);
    const ms = new Float64Array(a.ids.length);
    let refused = 0;
    await pool(a.ids.length, a.concurrency, async (i) => {
      const t = now();
      try {
        await c.refund(a.ids[i], loginToken);
      } catch {
        refused++;
      }
      ms[i] = now() - t;
    });
    return { ms, refused };
  },

  /** Like `upload`, timing each call (ms). */
  async timedUpload(a: { url: string; creds: Creds; tag: string; calls: number; items: number }) {
    const c = client(a.url, a.creds);
    const ms = new Float64Array(a.calls);
    for (let call = 0; call < a.calls; call++) {
      const items = Array.from({ length: a.items }, (_, i) => ({ type: 'record', args: { id: `${a.tag}-${call}-${i}`, v: i } }));
      const t = now();
      await c.expect('pending', 'POST', '/common-chain-upload/', { body: { items } });
      ms[call] = now() - t;
    }
    return ms;
  },

  /**
   * Upload → confirmed (4.14, 4.15): `writers` loops each upload one item, poll its lookup every
   * 10 ms until it has an on-chain id, then pause up to a second at random, so that uploads fall
   * at every point of the sealer's cycle. Uploads go to `urls[i % n]`, lookups to the next one.
   */
  async confirmed(a: { urls: string[]; creds: Creds; seconds: number; writers: number; tag: string }) {
    const samples: number[] = [];
    let failed = 0;
    let n = 0;
    const until = Date.now() + a.seconds * 1000;
    await Promise.all(
      Array.from({ length: a.writers }, async (_, w) => {
        const up = client(a.urls[w % a.urls.length], a.creds);
        const look = client(a.urls[(w + 1) % a.urls.length], a.creds);
        while (Date.now() < until) {
          const id = `${a.tag}-${n++}`;
          await up.expect('pending', 'POST', '/common-chain-upload/', { body: { items: [{ type: 'record', args: { id } }] } });
          const accepted = now();
          for (;;) {
            const res = await look.call<{ items: Array<{ id?: string }> }>('POST', '/common-chain-upload/fetchOnChainIds', {
              body: { items: [{ type: 'record', id, queryType: 'i2c' }] },
            });
            const item = res.body.items?.[0];
            if (item?.id) break;
            if (item && item.id === undefined) {
              failed++;
              break;
            }
            await sleep(10);
          }
          samples.push(now() - accepted);
          await sleep(Math.random() * 1000);
        }
      }),
    );
    return { samples: Float64Array.from(samples), failed };
  },

  /** `calls` uploads one after another of `items` `record` items each, named `${tag}-<call>-<i>`. */
  async upload(a: { url: string; creds: Creds; tag: string; calls: number; items: number }) {
    const c = client(a.url, a.creds);
    for (let call = 0; call < a.calls; call++) {
      const items = Array.from({ length: a.items }, (_, i) => ({ type: 'record', args: { id: `${a.tag}-${call}-${i}`, v: i } }));
      await c.expect('pending', 'POST', '/common-chain-upload/', { body: { items } });
    }
  },

  /** Lookup of uploaded items (4.15): how many have an on-chain id, are pending, or failed. */
  async lookup(a: { url: string; creds: Creds; ids: string[] }) {
    const res = await client(a.url, a.creds).call<{ items: Array<{ id?: string }> }>('POST', '/common-chain-upload/fetchOnChainIds', {
      body: { items: a.ids.map((id) => ({ type: 'record', id, queryType: 'i2c' })) },
    });
    const items = res.body.items ?? [];
    return {
      confirmed: items.filter((x) => x.id).length,
      pending: items.filter((x) => x.id === '').length,
      failed: items.filter((x) => x.id === undefined).length,
    };
  },

  /** Creates a sub-merchant (4.17) of `parentId`; returns its id. */
  async subMerchant(a: { url: string; creds: Creds; parentId: string; displayName: string }) {
    const pw = `bench-${Date.now()}`;
    const r = await client(a.url, a.creds).createMerchant({
      type: 'subMerchant',
      parameters: { displayName: a.displayName, pw, appId: a.creds.appId, parentMerchantId: a.parentId },
    });
    return r.data.id;
  },

  /** Sets a merchant's own `SocialNative` parameters to just this callback URL (the rest it inherits). */
  async callbackUrl(a: { url: string; creds: Creds; merchantId: string; notifyCallbackUrl: string }) {
    await client(a.url, a.creds).setPaymentParams(a.merchantId, 'SocialNative', { notifyCallbackUrl: a.notifyCallbackUrl });
  },
});
