/**
 * Acme Pay's stand-in: a small HTTP server that speaks the test wallet's made-up protocol (see
 * `provider.ts`) as the platform would, signing and checking with code of its own, written apart
 * from the provider's so that a signing bug on one side is caught by the other. It refuses a request
 * whose signature is not the kit's; the test plays the payer (`scan`, a code at the counter) and the
 * platform's back office (`completeRefund`), each of which sends the kit a signed notification.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Order {
  merchant: string;
  orderNo: string;
  amount: number;
  notifyUrl: string;
  qr: string;
  state: 'open' | 'paid' | 'closed' | 'refunded';
  paymentId?: string;
  paidAt?: number;
}

interface Refund {
  orderNo: string;
  refundNo: string;
  refundId: string;
  amount: number;
  notifyUrl: string;
  state: 'pending' | 'done';
}

/** A notification sent to the kit, with its answer. */
export interface SentNotification {
  url: string;
  body: Record<string, unknown>;
  status: number;
  answer: string;
}

export interface AcmeStandIn {
  url: string;
  /** Every request the kit made, as `<path> <order_no>`. */
  calls: string[];
  notifications: SentNotification[];
  /** The payer scans `qr` with Acme Pay and pays: Acme notifies the kit (its answer is returned). */
  scan(qr: string): Promise<SentNotification>;
  /** Acme's back office completes a refund: Acme notifies the kit. */
  completeRefund(refundNo: string): Promise<SentNotification>;
  /** A refund Acme holds, by the kit's refund number. */
  refund(refundNo: string): Refund | undefined;
  order(orderNo: string): Order | undefined;
  /** Posts `body` to the kit's notification URL with a signature made with `key` (a forger's, in a test). */
  notify(url: string, body: Record<string, unknown>, key?: string): Promise<SentNotification>;
  close(): Promise<void>;
}

/** HMAC-SHA256 of `<t>.<body>`, as Acme Pay's documentation says (written here, not taken from the provider). */
function sign(key: string, t: number, body: string): string {
  const mac = crypto.createHmac('sha256', Buffer.from(key, 'utf8'));
  mac.update(String(t));
  mac.update('.');
  mac.update(body);
  return `t=${t},v1=${mac.digest('hex')}`;
}

function signedByKit(key: string, header: string | undefined, body: string, now: number): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isFinite(t) || Math.abs(now - t) > 300_000 || !parts.v1) return false;
  const want = sign(key, t, body).split('v1=')[1];
  return want.length === parts.v1.length && crypto.timingSafeEqual(Buffer.from(want), Buffer.from(parts.v1));
}

/** Starts the stand-in on a loopback port; `now` is the clock it signs and checks times with (the kit's). */
export async function startAcmeStandIn(key: string, now: () => number): Promise<AcmeStandIn> {
  const orders = new Map<string, Order>();
  const refunds = new Map<string, Refund>();
  const calls: string[] = [];
  const notifications: SentNotification[] = [];
  let serial = 0;
  const nextId = (prefix: string) => `${prefix}${String(++serial).padStart(10, '0')}`;

  /** What Acme answers to one call: its body, or a refusal `{error, message}`. */
  function answer(path: string, b: Record<string, unknown>): Record<string, unknown> {
    const orderNo = String(b.order_no ?? '');
    const order = orders.get(orderNo);
    const refused = (error: string, message: string) => ({ error, message });
    if (order && b.merchant !== order.merchant) return refused('merchant_mismatch', 'the order belongs to another merchant');
    switch (path) {
      case '/v1/orders': {
        if (order)
          return order.state === 'open' ? { qr: order.qr } : refused(order.state === 'paid' ? 'order_paid' : 'order_closed', `the order is ${order.state}`);
        const placed: Order = {
          merchant: String(b.merchant),
          orderNo,
          amount: Number(b.amount),
          notifyUrl: String(b.notify_url),
          qr: `acme://pay/${nextId('Q')}`,
          state: 'open',
        };
        orders.set(orderNo, placed);
        return { qr: placed.qr };
      }
      case '/v1/orders/query':
        if (!order) return refused('no_such_order', 'no such order');
        return { state: order.state, amount: order.amount, ...(order.paymentId ? { payment_id: order.paymentId, paid_at: order.paidAt } : {}) };
      case '/v1/orders/close':
        if (!order) return {};
        if (order.state === 'paid' || order.state === 'refunded') return refused('order_paid', 'the order is paid');
        order.state = 'closed';
        return {};
      case '/v1/charges': {
        const code = String(b.code);
        if (!/^99\d{16}$/.test(code)) return refused('code_invalid', 'not an Acme Pay code');
        const charged: Order = {
          merchant: String(b.merchant),
          orderNo,
          amount: Number(b.amount),
          notifyUrl: String(b.notify_url),
          qr: '',
          state: 'paid',
          paymentId: nextId('P'),
          paidAt: now(),
        };
        orders.set(orderNo, charged);
        return { state: 'paid', payment_id: charged.paymentId, paid_at: charged.paidAt };
      }
      case '/v1/charges/cancel':
        if (order) order.state = 'closed';
        return {};
      case '/v1/refunds': {
        const refundNo = String(b.refund_no);
        const known = refunds.get(refundNo);
        if (known) return { refund_id: known.refundId };
        if (!order || order.state !== 'paid') return refused('order_not_paid', 'only a paid order is refunded');
        if (Number(b.amount) !== order.amount) return refused('amount_mismatch', 'refunds are of the whole order');
        const refund: Refund = { orderNo, refundNo, refundId: nextId('R'), amount: order.amount, notifyUrl: String(b.notify_url), state: 'pending' };
        refunds.set(refundNo, refund);
        return { refund_id: refund.refundId };
      }
      case '/v1/refunds/query': {
        const refund = refunds.get(String(b.refund_no));
        if (!refund) return refused('no_such_refund', 'no such refund');
        return { refund_id: refund.refundId, state: refund.state, amount: refund.amount };
      }
      default:
        return refused('no_such_call', `no call ${path}`);
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?', 1)[0];
      let body: Record<string, unknown>;
      if (req.method !== 'POST' || !signedByKit(key, req.headers['acme-signature'] as string | undefined, text, now())) {
        body = { error: 'bad_signature', message: 'requests are signed with the API key' };
      } else {
        const b = JSON.parse(text) as Record<string, unknown>;
        calls.push(`${path} ${String(b.order_no ?? b.refund_no ?? '')}`);
        body = answer(path, b);
      }
      const out = JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json', 'acme-signature': sign(key, now(), out) });
      res.end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function notify(to: string, body: Record<string, unknown>, withKey = key): Promise<SentNotification> {
    const text = JSON.stringify(body);
    const res = await fetch(to, { method: 'POST', headers: { 'content-type': 'application/json', 'acme-signature': sign(withKey, now(), text) }, body: text });
    const sent = { url: to, body, status: res.status, answer: await res.text() };
    notifications.push(sent);
    return sent;
  }

  return {
    url,
    calls,
    notifications,
    async scan(qr) {
      const order = [...orders.values()].find((o) => o.qr === qr);
      if (!order || order.state !== 'open') throw new Error(`Acme Pay has no open order with the code ${qr}`);
      Object.assign(order, { state: 'paid', paymentId: nextId('P'), paidAt: now() });
      return notify(order.notifyUrl, {
        type: 'payment.succeeded',
        order_no: order.orderNo,
        payment_id: order.paymentId,
        amount: order.amount,
        paid_at: order.paidAt,
      });
    },
    async completeRefund(refundNo) {
      const refund = refunds.get(refundNo);
      if (!refund) throw new Error(`Acme Pay holds no refund ${refundNo}`);
      refund.state = 'done';
      orders.get(refund.orderNo)!.state = 'refunded';
      return notify(refund.notifyUrl, {
        type: 'refund.succeeded',
        order_no: refund.orderNo,
        refund_no: refund.refundNo,
        refund_id: refund.refundId,
        amount: refund.amount,
      });
    },
    refund: (refundNo) => refunds.get(refundNo),
    order: (orderNo) => orders.get(orderNo),
    notify,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
