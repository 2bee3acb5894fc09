/**
 * Orders ready to be paid, made through the API by merchant load processes (create 4.1, then the
 * scan-code payment 4.3 so that a channel order exists), and the channel orders read back with SQL
 * to build the platform's notifications.
 */
import { Driver } from './rpc';
import type { Bench } from './bench';
import type { ChannelOrder } from './notifications';

export interface PayableOrder {
  prepayId: string;
  codeUrl: string;
}

/** `count` orders of 1.00 with their channel orders, spread over the instances and merchant processes. */
export async function payableOrders(b: Bench, count: number, subMerchantId = b.demo.subMerchantId): Promise<PayableOrder[]> {
  const urls = b.fleet.urls;
  const parts = Math.min(2 * urls.length, Math.max(1, Math.ceil(count / 500)));
  const per = Math.ceil(count / parts);
  const drivers = Array.from({ length: parts }, () => Driver.start('merchant'));
  try {
    const lists = await Promise.all(
      drivers.map((d, i) =>
        d.call<PayableOrder[]>('orders', {
          url: urls[i % urls.length],
          creds: b.creds,
          subMerchantId,
          count: Math.max(0, Math.min(per, count - i * per)),
          native: true,
        }),
      ),
    );
    return lists.flat();
  } finally {
    await Promise.all(drivers.map((d) => d.stop()));
  }
}

/** The channel orders of these prepay orders, in the same order. */
export async function channelOrders(b: Bench, prepayIds: readonly string[]): Promise<ChannelOrder[]> {
  const rows = await b.fleet.query<{ prepay_id: string; out_trade_no: string; total_cents: number; sign_type: string; merchant_json: string }>(
    `select prepay_id, out_trade_no, total_cents, sign_type, merchant_json from pay_channel_orders where state = $1`,
    ['open'],
  );
  const byPrepay = new Map(rows.map((r) => [r.prepay_id, r]));
  return prepayIds.map((id) => {
    const r = byPrepay.get(id);
    if (!r) throw new Error(`order ${id} has no open channel order`);
    return { prepayId: id, outTradeNo: r.out_trade_no, totalCents: Number(r.total_cents), signType: r.sign_type, merchant: JSON.parse(r.merchant_json) };
  });
}

/** How many of these orders are `finish` (read with SQL). */
export async function finishedCount(b: Bench, prepayIds: readonly string[]): Promise<number> {
  const rows = await b.fleet.query<{ prepay_id: string }>(`select prepay_id from prepay_orders where status = $1`, ['finish']);
  const done = new Set(rows.map((r) => r.prepay_id));
  return prepayIds.filter((id) => done.has(id)).length;
}
