/**
 * Stopping under load, through real HTTP: once the service is stopping its answers say
 * `Connection: close` (keep-alive clients go elsewhere), and calls still running when
 * SHUTDOWN_GRACE ends are cut, logged and counted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeQuery, signRequest } from '@kit/shared';
import { devV3Material } from '@kit/sandbox';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payFixture } from '../support/payments';
import { waitFor } from '../support/wait';

/** A payment gateway that takes calls and never answers. */
async function silentGateway() {
  const seen: string[] = [];
  const server = http.createServer((req) => seen.push(req.url ?? ''));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** One request on `agent`; resolves with the status, the Connection header and the body, or the socket error. */
function request(agent: http.Agent, url: string, method = 'GET', body?: string) {
  return new Promise<{ status?: number; connection?: string; body?: string; error?: string }>((resolve) => {
    const req = http.request(url, { agent, method, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body: text }));
      res.on('error', (e) => resolve({ error: e.message }));
    });
    req.on('error', (e) => resolve({ error: e.message }));
    req.end(body);
  });
}

describeEachBackend('shutdown', (backend) => {
  let kit: TestKit;
  let gateway: Awaited<ReturnType<typeof silentGateway>>;
  const lines: string[] = [];
  beforeAll(async () => {
    gateway = await silentGateway();
    // Its gateway is not its own sandbox: it is given the sandbox's development keys as settings.
    const base = backend.env();
    kit = await startTestKit(backend, {
      ...base,
      ...devV3Material(base.DATA_DIR!).settings,
      PAY_GATEWAY_URL: gateway.url,
      PAY_GATEWAY_TIMEOUT: '60s',
      SHUTDOWN_GRACE: '1500ms',
      LOG_LEVEL: 'warn',
    });
    const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
    jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stdout.write);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await kit.close();
    await gateway.close();
  });

  it('answers with Connection: close once stopping, and logs and counts the calls cut at the end of the grace', async () => {
    const f = await payFixture(kit);
    const held = await newOrder(f);
    const slow = await newOrder(f);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    // Before stopping, answers keep the connection.
    expect((await request(agent, `${kit.url}/health`)).connection).toBe('keep-alive');

    // A held 4.2 call (answered when stopping starts) and a 4.3 stuck at a gateway that never answers.
    const sign = (method: string, path: string, body?: string) =>
      `${kit.url}${path}?${encodeQuery(signRequest({ method, path, body, query: method === 'GET' ? { waitForFinish: '1' } : undefined }, f))}`;
    const heldCall = request(agent, sign('GET', `/submerchant-pay/prePay/${held}`));
    const slowBody = JSON.stringify({ prepayId: slow });
    const slowCall = request(agent, sign('POST', '/submerchant-pay/socialPayNative', slowBody), 'POST', slowBody);
    await waitFor(() => gateway.seen.length > 0, 'the gateway call');

    const stopped = kit.runtime.close();
    const heldAnswer = await heldCall;
    expect(heldAnswer.status).toBe(200);
    expect(heldAnswer.connection).toBe('close');
    const cut = await slowCall;
    expect(cut.error).toBeDefined();
    await stopped;

    const warn = lines.find((l) => l.includes('cut'));
    expect(warn).toBeDefined();
    expect(JSON.parse(warn!)).toMatchObject({ level: 40, cut: 1, calls: ['POST /submerchant-pay/socialPayNative'] });
    expect(await kit.runtime.services.metrics.text()).toMatch(/kit_shutdown_cut_requests_total 1/);
    agent.destroy();
  }, 30_000);
});
