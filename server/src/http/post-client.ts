/**
 * A small HTTP(S) POST client for the service's outgoing calls to merchants (callbacks), and for the
 * payment platform's calls that present a client certificate (protocol v2's `/secapi/`): node's
 * own `http.request` on keep-alive agents, with one deadline for the whole exchange and only the
 * head of the answer read. Measured against `fetch` (undici's web streams, abort signals and
 * request objects per call): callback delivery CPU per callback, see docs/performance.md.
 * Redirects are not followed (an answer is an answer).
 */
import type { Clock } from '@kit/shared/clock';
import http from 'node:http';
import https from 'node:https';
import type { OutboundPolicy } from '../security/outbound-url';

export interface PostAnswer {
  status: number;
  /** At most `maxBytes` of the body, as UTF-8. */
  head: string;
}

export class PostTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

export interface PostOptions {
  headers: Record<string, string>;
  /** The whole exchange (connect, send, answer head) must end within this, on `clock`. */
  timeoutMs: number;
  clock: Clock;
  /** Aborting it (shutdown) ends the exchange with an error. */
  signal?: AbortSignal;
  maxBytes: number;
  /** Where the call may go: its agents check the address connected to (CALLBACK_ALLOW_PRIVATE). Unset: anywhere. */
  outbound?: OutboundPolicy;
  /** The agent to send through instead (one holding a client certificate, for mutual TLS); its protocol must be the URL's. */
  agent?: http.Agent;
}

/** POSTs `body` to `url`; resolves with the status and the answer's first bytes, rejects on a network error or the deadline. */
export function post(url: string, body: string, opts: PostOptions): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch (e) {
      return reject(e);
    }
    const agent = opts.agent ?? (opts.outbound?.agents ?? agents)[target.protocol as keyof typeof agents];
    if (!agent) return reject(new Error(`unsupported protocol ${target.protocol}`));
    try {
      // An address written as such is never looked up: the agents' hook cannot see it.
      opts.outbound?.checkLiteral(target);
    } catch (e) {
      return reject(e);
    }
    const send = target.protocol === 'https:' ? https.request : http.request;
    let done = false;
    const finish = (err: Error | undefined, answer?: PostAnswer) => {
      if (done) return;
      done = true;
      opts.clock.clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(answer!);
    };
    const req = send(target, { method: 'POST', agent, headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const end = () => {
        finish(undefined, { status: res.statusCode ?? 0, head: Buffer.concat(chunks).subarray(0, opts.maxBytes).toString('utf8') });
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= opts.maxBytes) {
          end();
          res.destroy(); // the rest is not read: the socket is not reused
        }
      });
      res.on('end', end);
      res.on('error', (e) => finish(e));
    });
    // Listening first: an abort already signalled destroys the request at once, and an 'error'
    // event with no listener would throw out of the process.
    req.on('error', (e) => finish(e));
    const timer = opts.clock.setTimeout(() => {
      const e = new PostTimeoutError(`no answer within ${opts.timeoutMs} ms`);
      finish(e);
      req.destroy(e);
    }, opts.timeoutMs);
    const onAbort = () => {
      const e = new Error('aborted');
      e.name = 'AbortError';
      finish(e);
      req.destroy(e);
    };
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}
