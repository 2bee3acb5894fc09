/**
 * The payment platform's protocol-v2 gateway as it takes `/secapi/` calls: an HTTPS listener
 * (node:https, `requestCert`) in front of the sandbox that asks every connection for a client
 * certificate and checks it against the merchant CA it was made with, refuses a `/secapi/` call whose
 * connection did not present one that verifies (403), and passes every other call through to the
 * sandbox unchanged. The certificates are made with the openssl CLI: a CA, the listener's own for
 * 127.0.0.1, and a merchant API certificate under the CA (PEM files and a PKCS#12 bundle), plus one
 * self-signed certificate the CA never issued.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';

export interface GatewayCall {
  method: string;
  /** The path as sent, `/sandbox/secapi/pay/refund`. */
  url: string;
  /** Whether the connection presented a client certificate the CA issued. */
  authorized: boolean;
  /** The SHA-256 fingerprint of the client certificate presented, if any. */
  fingerprint?: string;
  status: number;
}

export interface MutualTlsGateway {
  /** `https://127.0.0.1:<port>`: the platform's base URL (append `/sandbox`). */
  url: string;
  /** PEM of the CA that issued the listener's certificate and the merchant's (a client trusts the listener with it). */
  caFile: string;
  /** The merchant API certificate the CA issued, as the merchant platform's download holds it. */
  merchant: { certFile: string; keyFile: string; p12File: string; p12Password: string; fingerprint: string };
  /** A certificate and key the CA never issued. */
  stranger: { certFile: string; keyFile: string };
  /** Where calls go through to: `http://127.0.0.1:<kit port>`. */
  target: string;
  calls: GatewayCall[];
  close(): Promise<void>;
}

export async function startMutualTlsGateway(merchantNumber: string): Promise<MutualTlsGateway> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mtls-gateway-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const file = (name: string) => path.join(dir, name);
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '30',
    '-sha256',
    '-subj',
    '/O=Payment platform/CN=Merchant CA',
  );
  const issue = (name: string, subject: string, extensions?: string) => {
    openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    if (extensions) fs.writeFileSync(file(`${name}.ext`), extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '30',
      '-sha256',
      '-out',
      `${name}.pem`,
      ...(extensions ? ['-extfile', `${name}.ext`] : []),
    );
  };
  issue('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  issue('apiclient', `/O=Merchant/CN=${merchantNumber}`, 'extendedKeyUsage=clientAuth\n');
  const p12Password = merchantNumber;
  openssl('pkcs12', '-export', '-in', 'apiclient.pem', '-inkey', 'apiclient.key', '-out', 'apiclient.p12', '-passout', `pass:${p12Password}`);
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'stranger.key', '-out', 'stranger.pem', '-days', '30', '-subj', `/CN=${merchantNumber}`);

  const calls: GatewayCall[] = [];
  const gateway: MutualTlsGateway = {
    url: '',
    caFile: file('ca.pem'),
    merchant: {
      certFile: file('apiclient.pem'),
      keyFile: file('apiclient.key'),
      p12File: file('apiclient.p12'),
      p12Password,
      fingerprint: new X509Certificate(fs.readFileSync(file('apiclient.pem'))).fingerprint256,
    },
    stranger: { certFile: file('stranger.pem'), keyFile: file('stranger.key') },
    target: '',
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const server = https.createServer(
    {
      key: fs.readFileSync(file('server.key')),
      cert: fs.readFileSync(file('server.pem')),
      ca: fs.readFileSync(file('ca.pem')),
      // Every connection is asked; whether a call needs the answer is the path's to say.
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      const fingerprint = peer && 'fingerprint256' in peer && peer.fingerprint256 ? peer.fingerprint256 : undefined;
      const call: GatewayCall = {
        method: req.method!,
        url: req.url!,
        // A certificate presented and verified. Node calls a resumed TLS 1.3 session authorized even when
        // no certificate was ever presented on it (a client's second connection, once its first has idled
        // out): that is no certificate, for this gateway as for the platform's.
        authorized: socket.authorized && fingerprint !== undefined,
        fingerprint,
        status: 0,
      };
      calls.push(call);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          if (/^\/sandbox\/secapi\//.test(req.url!) && !call.authorized) {
            call.status = 403;
            res.writeHead(403, { 'content-type': 'text/plain' });
            return res.end(`client certificate required (${socket.authorizationError ?? 'none presented'})`);
          }
          const answer = await fetch(`${gateway.target}${req.url}`, {
            method: req.method,
            headers: { 'content-type': String(req.headers['content-type'] ?? 'text/xml') },
            body: chunks.length ? Buffer.concat(chunks) : undefined,
          });
          call.status = answer.status;
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/xml' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })().catch(() => res.destroy());
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  gateway.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return gateway;
}

/** A POST to the gateway, trusting its CA, presenting `client` (or nothing): the status, or the connection's error. */
export function postThrough(
  gateway: Pick<MutualTlsGateway, 'url' | 'caFile'>,
  urlPath: string,
  body: string,
  client?: { certFile: string; keyFile: string },
): Promise<{ status: number; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = https.request(
      `${gateway.url}${urlPath}`,
      {
        method: 'POST',
        ca: fs.readFileSync(gateway.caFile),
        ...(client ? { cert: fs.readFileSync(client.certFile), key: fs.readFileSync(client.keyFile) } : {}),
        headers: { 'content-type': 'text/xml' },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', (e) => resolve({ error: e.message }));
    req.end(body);
  });
}
