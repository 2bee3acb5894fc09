/**
 * The merchant's callback receiver (section 6), in its own process: verifies each callback with
 * the shared verifier, answers `OK` (mode `ok`) or 503 (mode `fail`, a receiver that is down), and
 * records what arrived.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyCallback } from '@kit/shared';
import { now, serve } from '../lib/rpc';
import type { Creds } from '../lib/requests';

let mode: 'ok' | 'fail' = 'ok';
let creds: Creds | undefined;
const delivered: Array<[prepayId: string, at: number, status: string]> = [];
const refused = new Set<string>();
let refusals = 0;
let badSignatures = 0;

serve({
  async start(a: { creds: Creds; mode: 'ok' | 'fail' }): Promise<{ url: string }> {
    creds = a.creds;
    mode = a.mode;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = now();
        const rawBody = Buffer.concat(chunks);
        let event: { prepayId: string; status: string };
        try {
          event = verifyCallback({ method: req.method, url: req.url!, rawBody }, creds!.appSecret, { appId: creds!.appId });
        } catch {
          badSignatures++;
          res.writeHead(400).end('bad signature');
          return;
        }
        if (mode === 'fail') {
          refusals++;
          refused.add(event.prepayId);
          res.writeHead(503).end('down');
          return;
        }
        delivered.push([event.prepayId, at, event.status]);
        res.end('OK');
      });
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/kit-callback` };
  },
  mode(a: { mode: 'ok' | 'fail' }) {
    mode = a.mode;
  },
  /** Counts only (cheap to poll). */
  counts() {
    return { delivered: delivered.length, refusedOrders: refused.size, refusals, badSignatures };
  },
  arrivals() {
    return { delivered: delivered.slice(), refusedOrders: refused.size, refusals, badSignatures };
  },
  reset() {
    delivered.length = 0;
    refused.clear();
    refusals = 0;
    badSignatures = 0;
  },
});
