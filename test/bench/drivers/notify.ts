/**
 * Load process playing the payment platform: sends payment notifications to
 * `POST /pay-notify/social/pay`, either at a fixed rate (open loop: one every 1/rate s whatever
 * the answers) or as fast as a number of concurrent senders allows. Records when each was sent
 * and answered and whether the service acknowledged it (protocol v2 or v3, lib/notifications.ts).
 */
import http from 'node:http';
import { now, serve, sleep } from '../lib/rpc';
import { acknowledged, payNotification, type ChannelOrder, type PlatformSide } from '../lib/notifications';

export interface NotifyArgs {
  url: string;
  /** The platform's protocol and keys, those the service is configured with. */
  platform: PlatformSide;
  orders: ChannelOrder[];
  /** Notifications per second (open loop), or… */
  rate?: number;
  /** …this many in flight at a time. */
  concurrency?: number;
}

export interface NotifyAnswer {
  sent: Float64Array;
  answered: Float64Array;
  /** Acknowledged (2xx, and `SUCCESS` on v2). */
  acked: Uint8Array;
  elapsedMs: number;
}

let serial = 0;

async function send(a: NotifyArgs): Promise<NotifyAnswer> {
  const base = new URL(a.url);
  const prefix = base.pathname.replace(/\/$/, '');
  // Built before the clock starts: the platform's own cost is not the service's.
  const requests = a.orders.map((o) => payNotification(a.platform, o, `${process.pid}x${serial++}`));
  const bodies = requests.map((r) => r.body);
  const n = bodies.length;
  const sent = new Float64Array(n);
  const answered = new Float64Array(n);
  const acked = new Uint8Array(n);
  const agent = new http.Agent({ keepAlive: true, maxSockets: a.concurrency ?? 256 });
  const post = (i: number) =>
    new Promise<void>((resolve) => {
      sent[i] = now();
      const req = http.request(
        { host: base.hostname, port: base.port, path: prefix + requests[i].path, method: 'POST', agent, headers: requests[i].headers },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            answered[i] = now();
            acked[i] = acknowledged(a.platform.protocol, res.statusCode ?? 0, text) ? 1 : 0;
            resolve();
          });
        },
      );
      req.on('error', () => {
        answered[i] = now();
        resolve();
      });
      req.end(bodies[i]);
    });
  const started = now();
  if (a.rate) {
    const gap = 1000 / a.rate;
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const due = started + i * gap;
      const wait = due - now();
      if (wait > 1) await sleep(wait);
      inFlight.push(post(i));
    }
    await Promise.all(inFlight);
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(a.concurrency ?? 32, n) }, async () => {
        while (next < n) await post(next++);
      }),
    );
  }
  agent.destroy();
  return { sent, answered, acked, elapsedMs: now() - started };
}

serve({ send });
