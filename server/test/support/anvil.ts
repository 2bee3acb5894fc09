/**
 * A real local EVM node for the anchoring tests: anvil from the npm package
 * `@foundry-rs/anvil-linux-amd64`, an optional dependency of the root (the registry this project installs
 * from carries only that platform's build, and the `@foundry-rs/anvil` wrapper lists all five, which
 * `npm ci` then refuses as a lock file out of sync; nothing is downloaded at run time), on a free port,
 * stopped by the test. Plus a switchable JSON-RPC relay in front of it, to take "the RPC" down and up again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { freePort } from './process';
import { waitFor } from './wait';

const ROOT = path.resolve(__dirname, '../../..');

/** anvil's first default account (a well-known development key: never use it on a real chain). */
export const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const ANVIL_CHAIN_ID = 31337;

export interface Anvil {
  url: string;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

export async function rpcCall<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function startAnvil(): Promise<Anvil> {
  const port = await freePort();
  // Its own process group: the npm launcher starts the binary as a child, and stopping kills both.
  const child: ChildProcess = spawn(path.join(ROOT, 'node_modules/.bin/anvil'), ['--port', String(port), '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`anvil exited: ${err}`);
    return rpcCall(url, 'eth_chainId').then(
      () => true,
      () => false,
    );
  }, 'anvil answering').catch((e: Error) => {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    throw new Error(`anvil did not start (${e.message}): ${err}`);
  });
  return {
    url,
    rpc: (method, params) => rpcCall(url, method, params),
    async stop() {
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        await exited;
      }
    },
  };
}

/** An HTTP relay to `target` that can be switched off: then every connection is cut, as with a node that is down. */
export async function startRelay(target: string): Promise<{ url: string; up: boolean; close(): Promise<void> }> {
  const state = { up: true };
  const server = http.createServer((req, res) => {
    if (!state.up) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) }).then(
        async (r) => {
          if (!state.up) return void req.socket.destroy();
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(Buffer.from(await r.arrayBuffer()));
        },
        () => req.socket.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get up() {
      return state.up;
    },
    set up(v: boolean) {
      state.up = v;
      if (!v) server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
