/**
 * The database going away, through real HTTP: clients get 503 `unavailable` with `Retry-After`
 * (never 500 `internal`), `/health` says so while `/health/live` stays 200, a hung database is
 * bounded by the statement timeout, and everything works again when the database returns.
 * PostgreSQL is reached through a TCP proxy the test stops and starts (the machine's server is not
 * touched); SQLite's disk fills up or turns read-only through its own limits.
 */
import { encodeQuery, signRequest } from '@kit/shared';
import { backends } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/payments';

async function fixture(kit: TestKit) {
  const app = await kit.newApp();
  const m = await createMerchants(app.client, app.appId);
  const create = () => app.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: m.subId, totalAmount: '1.00' } });
  return { ...app, ...m, create };
}

const expectUnavailable = (a: { httpStatus: number; body: Record<string, unknown> }) => {
  expect(a.httpStatus).toBe(503);
  expect(a.body).toMatchObject({ status: 'fail', error: 'unavailable', code: 'E0091' });
};

async function fetchJson(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

const sqlite = backends()[0];
describe('an unavailable database [sqlite]', () => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(sqlite);
  });
  afterAll(async () => {
    await kit.close();
    await sqlite.cleanup();
  });

  it('answers 503 unavailable with Retry-After while the disk is full, then works again', async () => {
    const f = await fixture(kit);
    const raw = kit.runtime.db.sqlite!;
    const pages = raw.pragma('page_count', { simple: true }) as number;
    raw.pragma(`max_page_count = ${pages}`);
    try {
      // Fill what is left, as another writer on the same disk would.
      let full = false;
      for (let i = 0; i < 500 && !full; i++) {
        const a = await f.create();
        if (a.httpStatus !== 200) {
          expectUnavailable(a);
          full = true;
        }
      }
      expect(full).toBe(true);
      // Still full: the next write is refused the same way, with Retry-After.
      const body = JSON.stringify({ subMerchantId: f.subId, totalAmount: '1.00' });
      const query = encodeQuery(signRequest({ method: 'POST', path: '/submerchant-pay/', body }, f));
      const res = await fetchJson(`${kit.url}/submerchant-pay/?${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 'unavailable' });
      expect(res.retryAfter).toMatch(/^\d+$/);
    } finally {
      raw.pragma('max_page_count = 1073741823');
    }
    expect((await f.create()).httpStatus).toBe(200);
  });

  it('answers 503 unavailable while the database is read-only, then works again', async () => {
    const f = await fixture(kit);
    const raw = kit.runtime.db.sqlite!;
    raw.pragma('query_only = ON');
    try {
      expectUnavailable(await f.create());
    } finally {
      raw.pragma('query_only = OFF');
    }
    expect((await f.create()).httpStatus).toBe(200);
  });
});

const pg = backends().find((b) => b.name === 'postgres');
(pg ? describe : describe.skip)('an unavailable database [postgres]', () => {
  let kit: TestKit;
  let proxy: TcpProxy;
  beforeAll(async () => {
    const env = pg!.env();
    const target = new URL(env.DATABASE_URL!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(env.DATABASE_URL!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    kit = await startTestKit(pg!, { ...env, DATABASE_URL: viaProxy.toString(), DATABASE_STATEMENT_TIMEOUT: '1s' });
  });
  afterAll(async () => {
    proxy.hang(false);
    await proxy.start();
    await kit?.close();
    await proxy.close();
    await pg!.cleanup();
  });

  it('answers 503 while PostgreSQL refuses connections, /health says so and /health/live stays 200; it recovers on its own', async () => {
    const f = await fixture(kit);
    expect((await f.create()).httpStatus).toBe(200);
    await proxy.stop();
    expectUnavailable(await f.create());
    const read = await fetchJson(`${kit.url}/merchant/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: f.parentId, pw: f.pw }),
    });
    expect(read.status).toBe(503);
    expect(read.retryAfter).toMatch(/^\d+$/);
    const health = await fetchJson(`${kit.url}/health`);
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'unavailable', database: expect.any(String) });
    expect((await fetchJson(`${kit.url}/health/live`)).status).toBe(200);

    await proxy.start();
    await waitFor(async () => (await fetch(`${kit.url}/health`)).status === 200, 15_000, 'health back to 200');
    expect((await f.create()).httpStatus).toBe(200);
  }, 30_000);

  it('bounds a hung PostgreSQL by DATABASE_STATEMENT_TIMEOUT: 503 within seconds, not for as long as it hangs', async () => {
    const f = await fixture(kit);
    proxy.hang(true);
    const started = Date.now();
    expectUnavailable(await f.create());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await fetchJson(`${kit.url}/health`)).status).toBe(503);
    // The hung connections are cut, the database answers again: so does the service.
    proxy.hang(false);
    await proxy.stop();
    await proxy.start();
    await waitFor(async () => (await f.create()).httpStatus === 200, 15_000, 'writes back');
  }, 30_000);
});
