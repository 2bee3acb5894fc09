/**
 * Load process holding `waitForFinish=1` detail calls (4.2), one socket each, like payers' phones
 * waiting for their result. It records when each answer arrived and what it said; an `active`
 * answer (the hold time passed) is called again at once, as the specification's client loop does.
 */
import http from 'node:http';
import { encodeQuery, signRequest } from '@kit/shared';
import { now, serve } from '../lib/rpc';
import type { Creds } from '../lib/requests';

export interface HoldAnswer {
  prepayId: string;
  /** Epoch ms of the answer (fractions). */
  at: number;
  /** `status` of the answer, or `http <code>` / `error: …`. */
  status: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const answers: HoldAnswer[] = [];
let recalls = 0;
let waiting: { count: number; resolve: () => void } | undefined;

function record(a: HoldAnswer) {
  answers.push(a);
  if (waiting && answers.length >= waiting.count) waiting.resolve();
}

/** Sends one held call; resolves once the request is on the wire. */
function hold(base: URL, creds: Creds, prepayId: string): Promise<void> {
  const path = `/submerchant-pay/prePay/${prepayId}`;
  const q = signRequest({ method: 'GET', path, query: { waitForFinish: '1' } }, creds);
  return new Promise<void>((sent) => {
    const req = http.get({ host: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${path}?${encodeQuery(q)}`, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const at = now();
        let status = `http ${res.statusCode}`;
        try {
          if (res.statusCode === 200) status = String(JSON.parse(Buffer.concat(chunks).toString('utf8')).status);
        } catch {
          status = 'unreadable answer';
        }
        if (status === 'active') {
          recalls++;
          void hold(base, creds, prepayId);
        } else record({ prepayId, at, status });
      });
    });
    req.on('error', (e) => {
      record({ prepayId, at: now(), status: `error: ${e.message}` });
      sent();
    });
    req.on('finish', () => sent());
  });
}

serve({
  /** Opens one held call per id, at most 200 still being written at a time; resolves when all are sent. */
  async open(a: { url: string; creds: Creds; ids: string[] }): Promise<{ sent: number }> {
    const base = new URL(a.url);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(200, a.ids.length) }, async () => {
        while (next < a.ids.length) await hold(base, a.creds, a.ids[next++]);
      }),
    );
    return { sent: a.ids.length };
  },
  /** Answers so far; waits (up to `timeoutMs`) until there are at least `atLeast`. */
  async answers(a: { atLeast?: number; timeoutMs?: number }): Promise<{ answers: HoldAnswer[]; recalls: number }> {
    if (a.atLeast !== undefined && answers.length < a.atLeast) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, a.timeoutMs ?? 60_000);
        waiting = {
          count: a.atLeast!,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
      waiting = undefined;
    }
    return { answers: answers.slice(), recalls };
  },
  count(): number {
    return answers.length;
  },
});
