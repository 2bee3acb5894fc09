/**
 * The database going away, through real HTTP: clients get 503 `unavailable` with `Retry-After`
 * (never 500 `internal`), `/health` says so while `/health/live` stays 200, a hung database is
 * bounded by the statement timeout, and everything works again when the database returns.
 * PostgreSQL is reached through a TCP proxy the test stops and starts (the machine's server is not
 * touched); SQLite's disk fills up or turns read-only through its own limits.
 */
import { Client as PgClient } from 'pg';
import { encodeQuery, signRequest } from '@kit/shared';
import { backends } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

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

  const databaseUp = async () => Number(/^kit_database_up (\S+)$/m.exec(await (await fetch(`${kit.url}/metrics`)).text())?.[1]);

  it('answers 503 while PostgreSQL refuses connections, /health and kit_database_up say so and /health/live stays 200; it recovers on its own', async () => {
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
    // What the KitDatabaseUnavailable alert (ops/prometheus/alerts.yml) reads.
    expect(await databaseUp()).toBe(0);

    await proxy.start();
    await waitFor(async () => (await fetch(`${kit.url}/health`)).status === 200, 'health back to 200');
    await waitFor(async () => (await databaseUp()) === 1, 'kit_database_up back to 1');
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
    await waitFor(async () => (await f.create()).httpStatus === 200, 'writes back');
  }, 30_000);
});

/**
 * An operator fencing the database (`alter database … allow_connections false`, as before a
 * failover or a restore) and cutting its sessions: the call running at that moment meets 57P01,
 * every later connection 55000 "not currently accepting connections". Both are 503 `unavailable`
 * with `Retry-After`, never 500; when connections are allowed again the service carries on. The
 * database is one of the test's own (the suites share one database, schema per test).
 */
(pg ? describe : describe.skip)('a fenced database [postgres]', () => {
  const name = `kit_fence_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const fencedUrl = () => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  let admin: PgClient;
  let kit: TestKit | undefined;
  let schema: string;
  beforeAll(async () => {
    admin = new PgClient({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    // The backend's env gives the data folder and a schema (both removed by its cleanup); the database is this one.
    const env = pg!.env();
    schema = env.DATABASE_SCHEMA!;
    kit = await startTestKit(pg!, { ...env, DATABASE_URL: fencedUrl(), DATABASE_STATEMENT_TIMEOUT: '2s' });
  });
  afterAll(async () => {
    await admin.query(`alter database "${name}" allow_connections true`).catch(() => undefined);
    await kit?.close();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
    await pg!.cleanup();
  });

  const terminateSessions = (except: number[]) =>
    admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> all($2::int[])', [name, except]);

  it('answers 503 with Retry-After while connections are refused (55000) and for the call its sessions were cut under (57P01), then recovers', async () => {
    const f = await fixture(kit!);
    expect((await f.create()).httpStatus).toBe(200);
    const signedCreate = () => {
      const body = JSON.stringify({ subMerchantId: f.subId, totalAmount: '1.00' });
      const query = encodeQuery(signRequest({ method: 'POST', path: '/submerchant-pay/', body }, f));
      return fetchJson(`${kit!.url}/submerchant-pay/?${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    };
    const expect503 = (res: Awaited<ReturnType<typeof fetchJson>>) => {
      expect(res.status).toBe(503);
      expect(res.retryAfter).toMatch(/^\d+$/);
      expect(res.body).toMatchObject({ version: 1, status: 'fail', error: 'unavailable', code: 'E0091', msg: expect.any(String), traceId: expect.any(String) });
    };

    // A call held inside the database (behind a lock the test holds) when the sessions are cut.
    const locker = new PgClient({ connectionString: fencedUrl() });
    await locker.connect();
    const lockerPid = ((await locker.query('select pg_backend_pid() as pid')).rows[0] as { pid: number }).pid;
    await locker.query('begin');
    await locker.query(`lock table "${schema}".prepay_orders in access exclusive mode`);
    const inFlight = signedCreate();
    await waitFor(
      async () => (await admin.query("select 1 from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'", [name])).rowCount! > 0,
      'the call waiting on the lock',
    );
    await admin.query(`alter database "${name}" allow_connections false`);
    await terminateSessions([lockerPid]);
    expect503(await inFlight);
    await locker.query('rollback');
    await locker.end();
    await terminateSessions([]);

    // Every later call: the pool's new connections are refused with 55000.
    for (let i = 0; i < 3; i++) expect503(await signedCreate());
    const login = await fetchJson(`${kit!.url}/merchant/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: f.parentId, pw: f.pw }),
    });
    expect503(login);
    const health = await fetchJson(`${kit!.url}/health`);
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'unavailable' });

    await admin.query(`alter database "${name}" allow_connections true`);
    await waitFor(async () => (await fetch(`${kit!.url}/health`)).status === 200, 'health back to 200');
    expect((await signedCreate()).status).toBe(200);
    expect((await f.create()).httpStatus).toBe(200);
  }, 30_000);
});
