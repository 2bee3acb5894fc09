/**
 * A network partition between the service and PostgreSQL (docs/operations.md, "A network
 * partition"), through real HTTP: a TCP proxy between them drops what passes both ways without
 * closing a socket, then heals. A connection that carried bytes during the cut stays silent after
 * the heal, as TCP's retransmission backoff keeps it after a real one (`support/tcp-proxy.ts`).
 *
 * While cut, calls end with 503 `unavailable` within DATABASE_STATEMENT_TIMEOUT, the wait for a
 * connection included; once healed, `/health` and calls answer without waiting for any connection
 * the cut left silent, and the instance hears the others again at once (it listens anew). Every
 * connection to PostgreSQL has TCP keepalive on.
 */
import fs from 'node:fs';
import pg from 'pg';
import { backends } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

const backend = backends().find((b) => b.name === 'postgres');
const describePg = backend ? describe : describe.skip;

interface Answer {
  httpStatus: number;
  body: Record<string, unknown>;
}

const expectUnavailable = (a: Answer) => {
  expect(a.httpStatus).toBe(503);
  expect(a.body).toMatchObject({ status: 'fail', error: 'unavailable', code: 'E0091' });
};

/** A kit whose PostgreSQL is reached through a proxy the test cuts and heals. */
async function kitBehindProxy(env: NodeJS.ProcessEnv) {
  const base = backend!.env();
  const target = new URL(base.DATABASE_URL!);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(base.DATABASE_URL!);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const kit = await startTestKit(backend!, { ...base, DATABASE_URL: viaProxy.toString(), ...env });
  const app = await kit.newApp();
  const m = await createMerchants(app.client, app.appId);
  const create = (): Promise<Answer> => app.client.call('POST', '/submerchant-pay/', { body: { subMerchantId: m.subId, totalAmount: '1.00' } });
  const pool = kit.runtime.db.pool!;
  return { kit, proxy, create, pool, close: async () => (proxy.blackhole(false), await kit.close(), await proxy.close()) };
}

/** The kit behind a proxy of the tests around it: started before them, closed after. */
function partitionKit(env: NodeJS.ProcessEnv) {
  let started: Awaited<ReturnType<typeof kitBehindProxy>> | undefined;
  beforeAll(async () => {
    started = await kitBehindProxy(env);
  });
  afterAll(async () => {
    await started?.close();
    await backend!.cleanup();
  });
  return {
    get kit() {
      return started!.kit;
    },
    get proxy() {
      return started!.proxy;
    },
    get pool() {
      return started!.pool;
    },
    create: () => started!.create(),
  };
}

/** `promise`, or a failure naming `what` once `ms` have passed without it settling (the fault detector). */
function endsWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * The kernel's timer of each established connection to `port` from this machine (/proc/net/tcp):
 * 1 a retransmission pending, 2 the keepalive timer (armed only with SO_KEEPALIVE), 0 none.
 */
function connectionTimers(port: number): number[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[2]?.endsWith(`:${hexPort}`) && f[3] === '01')
    .map((f) => Number(f[5].split(':')[0]));
}

const otherInstances = async (kit: TestKit) => {
  const text = await (await fetch(`${kit.url}/metrics`)).text();
  return Number(/^kit_other_instances (\d+)$/m.exec(text)?.[1]);
};

/** Another instance on the kit's channel, straight to PostgreSQL (not cut off), saying hello every `everyMs`. */
async function otherInstance(kit: TestKit, everyMs: number) {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  const say = () => client.query('select pg_notify($1, $2)', [`kit_orders_${kit.runtime.db.schema}`, 'other1']).catch(() => undefined);
  const timer = setInterval(() => void say(), everyMs);
  return {
    close: async () => {
      clearInterval(timer);
      await client.end();
    },
  };
}

describePg('a network partition from PostgreSQL, with a statement bound of 1 s', () => {
  const BOUND_MS = 1_000;
  const k = partitionKit({ DATABASE_STATEMENT_TIMEOUT: `${BOUND_MS}ms` });

  it('keeps TCP keepalive on every connection to PostgreSQL', async () => {
    expect((await k.create()).httpStatus).toBe(200);
    const timers = connectionTimers(k.proxy.port);
    expect(timers.length).toBeGreaterThan(0);
    // Without SO_KEEPALIVE an idle connection has no timer at all (0).
    expect(timers.filter((t) => t !== 1 && t !== 2)).toEqual([]);
    expect(timers).toContain(2);
  });

  it('while cut, a call ends with 503 unavailable within the bound, also one that had to wait for a connection', async () => {
    k.proxy.blackhole(true);
    try {
      // Calls take every connection of the pool, and stay on them for as long as the cut holds them.
      const calls = Array.from({ length: k.pool.options.max }, () => k.create());
      // One has ended: the others have been held a whole bound. One made now waits for a connection;
      // it ends within the bound all the same (the old way, a wait and then a whole statement on a
      // connection the cut had silenced, took about twice as long).
      await Promise.race(calls);
      const waiter = k.create();
      // A generous fault detector: twice the bound.
      for (const call of [waiter, ...calls]) expectUnavailable(await endsWithin(call, 2 * BOUND_MS, 'a call against the cut database'));
    } finally {
      k.proxy.blackhole(false);
    }
    await waitFor(async () => (await k.create()).httpStatus === 200, 'calls to succeed after the heal');
  });
});

describePg('a network partition from PostgreSQL, with a statement bound of 6 s', () => {
  const BOUND_MS = 6_000;
  const k = partitionKit({ DATABASE_STATEMENT_TIMEOUT: `${BOUND_MS}ms` });

  it('after the heal, /health and calls answer at once: no connection the cut left silent is kept, nor waited for', async () => {
    const max = k.pool.options.max;
    // Every connection of the pool open, so that the calls below take them all.
    await waitFor(async () => (await Promise.all(Array.from({ length: max }, () => k.create())), k.pool.totalCount === max), 'a full pool');
    k.proxy.blackhole(true);
    try {
      // Sent into the cut on every connection: each runs out of time; no connection of them is kept.
      for (const a of await Promise.all(Array.from({ length: max }, () => k.create()))) expectUnavailable(a);
      // The pool's own question went unanswered too. The connections it has opened since are silenced by the cut.
      await waitFor(() => k.pool.away, 'the pool to find the database away');
    } finally {
      k.proxy.blackhole(false);
    }
    // Within half a bound of the heal: before any connection opened into the cut would run out of time.
    await waitFor(async () => (await fetch(`${k.kit.url}/health`)).status === 200, '/health to answer 200', BOUND_MS / 2);
    const after = await Promise.all(Array.from({ length: max }, () => k.create()));
    expect(after.map((a) => a.httpStatus)).toEqual(after.map(() => 200));
  });
});

describePg('a network partition from PostgreSQL, with another instance', () => {
  const BOUND_MS = 2_000;
  const k = partitionKit({ DATABASE_STATEMENT_TIMEOUT: `${BOUND_MS}ms`, INSTANCE_HELLO_INTERVAL: '300ms' });

  it('after the heal, it hears the other instance again at once: it listens on a new session', async () => {
    const other = await otherInstance(k.kit, 100);
    try {
      await waitFor(async () => (await otherInstances(k.kit)) === 1, 'the other instance heard');
      k.proxy.blackhole(true);
      try {
        // Three hello intervals without a word: the other is forgotten; the pool finds the database away.
        await waitFor(() => k.kit.runtime.bridge!.othersHeard === 0 && k.pool.away, 'the cut to be noticed');
      } finally {
        k.proxy.blackhole(false);
      }
      // Before a statement sent into the cut would even have run out of time.
      await waitFor(async () => (await otherInstances(k.kit)) === 1, 'the other instance heard again', BOUND_MS);
    } finally {
      await other.close();
    }
  });
});
