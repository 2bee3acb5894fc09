/**
 * What the payment scenarios share: a callback receiver with a sub-merchant of its own, the
 * platform's notifications sent from driver processes, and when they started.
 */
import { Driver, now, sleep } from './rpc';
import type { Bench } from './bench';
import type { ChannelOrder } from './notifications';
import type { NotifyAnswer, NotifyArgs } from '../drivers/notify';

/**
 * A receiver process and a sub-merchant of its own whose callback URL points at it, so that only
 * this scenario's payments make callbacks.
 */
export async function receiver(b: Bench, mode: 'ok' | 'fail'): Promise<{ receiver: Driver; shop: string; url: string }> {
  const r = b.driver('receiver');
  const { url } = await r.call<{ url: string }>('start', { creds: b.creds, mode });
  const m = Driver.start('merchant');
  try {
    const shop = await m.call<string>('subMerchant', {
      url: b.fleet.urls[0],
      creds: b.creds,
      parentId: b.demo.parentMerchantId,
      displayName: 'Bench callbacks',
    });
    await m.call('callbackUrl', { url: b.fleet.urls[0], creds: b.creds, merchantId: shop, notifyCallbackUrl: url });
    return { receiver: r, shop, url };
  } finally {
    await m.stop();
  }
}

/** Waits until the receiver has `count` callbacks (or a minute passed). */
export async function delivered(r: Driver, count: number): Promise<number> {
  let got = 0;
  for (const deadline = now() + 60_000; now() < deadline; await sleep(50)) {
    got = (await r.call<{ delivered: number }>('counts')).delivered;
    if (got >= count) break;
  }
  return got;
}

/**
 * Sends notifications for `orders` in the protocol the instances speak, spread over `urls` (every
 * instance by default), `concurrency` in flight in all.
 */
export async function notifyAll(b: Bench, orders: ChannelOrder[], concurrency: number, urls: readonly string[] = b.fleet.urls): Promise<NotifyAnswer[]> {
  const drivers = urls.map(() => Driver.start('notify'));
  try {
    const parts = await Promise.all(
      drivers.map((d, i) =>
        d.call<NotifyAnswer>('send', {
          url: urls[i],
          platform: b.fleet.platform,
          orders: orders.filter((_, k) => k % urls.length === i),
          concurrency: Math.ceil(concurrency / urls.length),
        } satisfies NotifyArgs),
      ),
    );
    return parts;
  } finally {
    await Promise.all(drivers.map((d) => d.stop()));
  }
}

/**
 * When the first notification of these driver runs was sent. Each driver process starts and signs
 * its notifications before sending (the platform's cost, seconds for 6,000 on v3): a rate counted
 * from the moment the drivers were asked would count that as the service's.
 */
export function firstSent(parts: ReadonlyArray<Pick<NotifyAnswer, 'sent'>>): number {
  return Math.min(...parts.map((p) => p.sent.reduce((m, x) => Math.min(m, x), Infinity)));
}
