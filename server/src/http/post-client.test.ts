import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestClock } from '@kit/shared/test-clock';
import { post } from './post-client';

describe('post', () => {
  let server: http.Server;
  let url: string;
  // Each call to /hang that reached the server.
  const hanging: Array<() => void> = [];
  const arrived = () => new Promise<void>((r) => hanging.push(r));
  beforeAll(async () => {
    // Answers `/ok` at once and leaves every other call hanging.
    server = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/hang') hanging.shift()?.();
      if (req.url === '/ok') req.on('end', () => res.end('OK'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const clock = new TestClock({ frozen: true });
  const opts = { headers: {}, timeoutMs: 5_000, maxBytes: 64, clock };

  it('answers the status and the head of the body', async () => {
    await expect(post(`${url}/ok`, '{}', opts)).resolves.toEqual({ status: 200, head: 'OK' });
  });

  it('rejects a call whose signal was aborted before it started, without an unhandled error event', async () => {
    // A shutdown that aborts between a job's claim and its send: the request is destroyed at once,
    // and its 'error' event must find a listener (else it throws out of the process).
    const uncaught = jest.fn();
    process.on('uncaughtException', uncaught);
    try {
      await expect(post(`${url}/hang`, '{}', { ...opts, signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('uncaughtException', uncaught);
    }
    expect(uncaught).not.toHaveBeenCalled();
  });

  it('rejects a call aborted while it waits for the answer', async () => {
    const ctl = new AbortController();
    const reached = arrived();
    const call = post(`${url}/hang`, '{}', { ...opts, signal: ctl.signal });
    await reached;
    ctl.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects a call that outlives its deadline on its clock, and not before', async () => {
    const reached = arrived();
    let ended = false;
    const call = post(`${url}/hang`, '{}', opts).finally(() => (ended = true));
    await reached;
    clock.advance(4_999);
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false);
    clock.advance(1);
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
