/**
 * Stopping behind a load balancer, as a process manager does it (SIGTERM to the compiled service):
 * for SHUTDOWN_DRAIN the service keeps listening and serving, `/health` answers 503
 * `shutting_down` so the balancer's checks take it out of rotation, and every answer says
 * `Connection: close`; then it stops listening and the process ends cleanly.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess, type ServiceProcess } from '../../server/test/support/process';
import { waitFor } from '../../server/test/support/wait';

/** One request on a connection of its own; the status, the Connection header and the body, or the socket error. */
function request(url: string, method = 'GET', body?: string) {
  return new Promise<{ status?: number; connection?: string; body?: string; error?: string }>((resolve) => {
    const req = http.request(url, { method, agent: false, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body: text }));
    });
    req.on('error', (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(body);
  });
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe('SIGTERM with SHUTDOWN_DRAIN', () => {
  let dataDir: string;
  let svc: ServiceProcess | undefined;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-drain-'));
  });
  afterAll(async () => {
    if (svc && svc.child.exitCode === null) await svc.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps serving with /health at 503 and Connection: close during the drain, then stops listening and exits 0', async () => {
    // A drain long enough for the checks below to fall inside it on a slow machine.
    svc = await startServiceProcess({ DATA_DIR: dataDir, SHUTDOWN_DRAIN: '8s', SHUTDOWN_GRACE: '1s' });
    const port = Number(new URL(svc.url).port);
    expect((await request(`${svc.url}/health`)).status).toBe(200);
    expect((await request(`${svc.url}/metrics`)).body).toMatch(/^kit_draining 0$/m);

    const exited = new Promise<number | null>((resolve) => svc!.child.on('exit', (code) => resolve(code)));
    svc.child.kill('SIGTERM');
    // New connections are still accepted; the readiness check says the instance is going away.
    const health = await waitFor(async () => {
      const h = await request(`${svc!.url}/health`);
      return h.status === 503 ? h : undefined;
    }, '/health answering 503');
    expect(JSON.parse(health.body!)).toEqual({ status: 'shutting_down' });
    expect(health.connection).toBe('close');
    // Calls the balancer still sends meanwhile are served (a database write here), each closing its connection.
    const login = await request(`${svc.url}/sandbox/login`, 'POST', JSON.stringify({ user: 'late payer' }));
    expect(login.status).toBe(200);
    expect(JSON.parse(login.body!)).toEqual({ code: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(login.connection).toBe('close');
    expect((await request(`${svc.url}/health/live`)).status).toBe(200);
    // What the KitInstanceDraining alert (ops/prometheus/alerts.yml) reads.
    expect((await request(`${svc.url}/metrics`)).body).toMatch(/^kit_draining 1$/m);
    expect(svc.output()).toMatch(/"drainMs":8000.*draining/);

    expect(await exited).toBe(0);
    expect(await portOpen(port)).toBe(false);
    expect(svc.output()).toContain('kit service stopped');
  }, 60_000);
});
