/**
 * Stand-ins for the payment platform in front of the sandbox, for the API v3 tests of what the real
 * platform does and the sandbox does not: an HTTP server that passes every call through to the
 * sandbox unchanged unless the test answers it itself (an error answer, signed or not), and a
 * gateway that accepts connections and never answers.
 */
import http from 'node:http';
import net from 'node:net';
import { randomBytes, sign, type KeyObject } from 'node:crypto';

export interface ProxiedCall {
  method: string;
  /** `/v3/…?query` as the kit sent it. */
  url: string;
  /** The request's `Wechatpay-Serial`, if any. */
  serial?: string;
  /** The request body as text (the mini-program API's JSON). */
  body: string;
}

/** The test's own answer to a call: status, JSON body, and whether (and how) it is signed. */
export interface OwnAnswer {
  status: number;
  body: object;
  signedBy?: { key: KeyObject; serial: string };
  headers?: Record<string, string>;
}

export interface PlatformProxy {
  url: string;
  /** Where calls go through to: `<kit>/sandbox`, set once the kit listens. */
  target: string;
  /** Answers a call itself when it returns an answer; otherwise the call goes through. */
  intercept: (call: ProxiedCall) => OwnAnswer | undefined;
  calls: ProxiedCall[];
  close(): Promise<void>;
}

/** The platform's answer signature: SHA256-with-RSA over `TIMESTAMP\nNONCE\nBODY\n`. */
export function platformHeaders(key: KeyObject, serial: string, body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const signature = sign('sha256', Buffer.from(`${timestamp}\n${nonce}\n${body}\n`), key).toString('base64');
  return { 'wechatpay-timestamp': timestamp, 'wechatpay-nonce': nonce, 'wechatpay-signature': signature, 'wechatpay-serial': serial };
}

export async function startPlatformProxy(): Promise<PlatformProxy> {
  const proxy: PlatformProxy = {
    url: '',
    target: '',
    intercept: () => undefined,
    calls: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const call: ProxiedCall = {
          method: req.method!,
          url: req.url!,
          serial: req.headers['wechatpay-serial'] as string | undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        proxy.calls.push(call);
        const own = proxy.intercept(call);
        if (own) {
          const body = JSON.stringify(own.body);
          res.writeHead(own.status, {
            'content-type': 'application/json',
            'request-id': `RID-${randomBytes(6).toString('hex').toUpperCase()}`,
            ...(own.signedBy ? platformHeaders(own.signedBy.key, own.signedBy.serial, body) : {}),
            ...own.headers,
          });
          return res.end(body);
        }
        const headers: Record<string, string> = {};
        for (const h of ['authorization', 'content-type', 'accept', 'wechatpay-serial']) if (req.headers[h]) headers[h] = String(req.headers[h]);
        const body = Buffer.concat(chunks);
        const answer = await fetch(`${proxy.target}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (k === 'content-type' || k === 'request-id' || k.startsWith('wechatpay-')) out[k] = v;
        });
        res.writeHead(answer.status, out);
        res.end(Buffer.from(await answer.arrayBuffer()));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return proxy;
}

/** A gateway that accepts every connection and never answers (nor closes): only a time limit ends a call to it. */
export async function startSilentGateway(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
