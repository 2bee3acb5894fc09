/**
 * The brute-force limit of every login (4.16, the POS display, the mini-program's code exchange):
 * per account and per client address, in the database, through real HTTP on every backend. The
 * service sits behind a trusted proxy on loopback (`TRUST_PROXY=loopback`), so each test can speak
 * for clients at other addresses with `X-Forwarded-For`.
 */
import { backends, describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { newOrder, payFixture, sandboxPost } from '../support/payments';

const PROXY_ENV = { TRUST_PROXY: 'loopback', ALLOW_INSECURE_LOGIN_ON_LOOPBACK: '0' };
let nextAddress = 1;
/** A client address of its own for each use. */
const freshAddress = () => `198.51.100.${nextAddress++}`;

async function post(url: string, body: unknown, address: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address, 'x-forwarded-proto': 'https' },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

describeEachBackend('login brute-force limit', (backend) => {
  let kit: TestKit;
  let ids: { parentId: string; subId: string; pw: string };
  const warnings: string[] = [];
  beforeAll(async () => {
    kit = await startTestKit(backend, { ...PROXY_ENV, LOG_LEVEL: 'warn', LOGIN_MAX_FAILURES: '3', LOGIN_LOCKOUT: '2s' });
    // The warn lines, as an operator's log reader would get them.
    const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
    jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (String(chunk).includes('locked out')) warnings.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stdout.write);
    const app = await kit.newApp();
    ids = await createMerchants(app.client, app.appId);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await kit.close();
  });
  const login = (userId: string, pw: string, address = freshAddress()) => post(`${kit.url}/merchant/login`, { userId, pw }, address);

  it('locks an account out after LOGIN_MAX_FAILURES failures from any addresses: 429 with Retry-After, even for the right password', async () => {
    // The clock stands still but where the test moves it: the lockouts end when the test says, not while it waits.
    kit.clock.freeze();
    try {
      for (let i = 0; i < 3; i++) expect((await login(ids.parentId, 'wrong password')).status).toBe(401);
      const locked = await login(ids.parentId, ids.pw);
      expect(locked.status).toBe(429);
      expect(locked.body).toMatchObject({ status: 'fail', error: 'login_throttled', code: 'E0008' });
      expect(Number(locked.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(locked.retryAfter)).toBeLessThanOrEqual(2);
      // Locked for the whole of LOGIN_LOCKOUT (2 s), not a moment less.
      await kit.advance(1_999);
      expect((await login(ids.parentId, ids.pw)).status).toBe(429);
      // The lockout ends; the next failure in the window locks again for twice as long.
      await kit.advance(1);
      expect((await login(ids.parentId, 'wrong password')).status).toBe(401);
      const doubled = await login(ids.parentId, ids.pw);
      expect(doubled.status).toBe(429);
      expect(Number(doubled.retryAfter)).toBeGreaterThanOrEqual(3);
      expect(Number(doubled.retryAfter)).toBeLessThanOrEqual(4);
      await kit.advance(3_999);
      expect((await login(ids.parentId, ids.pw)).status).toBe(429);
      await kit.advance(1);
      expect((await login(ids.parentId, ids.pw)).status).toBe(200);
      // A success reset the account: failures count from zero again.
      for (let i = 0; i < 2; i++) expect((await login(ids.parentId, 'wrong password')).status).toBe(401);
      expect((await login(ids.parentId, ids.pw)).status).toBe(200);
      expect(warnings.some((w) => w.includes(`account:${ids.parentId}`))).toBe(true);
      expect(warnings.join('')).not.toContain('wrong password');
    } finally {
      kit.clock.resume();
    }
  });

  it('locks an address out whatever accounts it tries, and leaves other addresses alone', async () => {
    const attacker = freshAddress();
    for (let i = 0; i < 3; i++) expect((await login(`PMnosuch${i}`, 'guess', attacker)).status).toBe(401);
    const locked = await login(ids.subId, ids.pw, attacker);
    expect(locked.status).toBe(429);
    expect(locked.retryAfter).toMatch(/^\d+$/);
    expect((await login(ids.subId, ids.pw)).status).toBe(200);
    const metrics = await (await fetch(`${kit.url}/metrics`)).text();
    expect(metrics).toMatch(/kit_login_attempts_total\{outcome="throttled"\} [1-9]/);
    expect(metrics).toMatch(/kit_login_attempts_total\{outcome="locked"\} [1-9]/);
    expect(warnings.some((w) => w.includes(`address:${attacker}`))).toBe(true);
  });

  it("throttles the POS display's login through the same limit, by the cashier's address", async () => {
    const app = await kit.newApp();
    const own = await createMerchants(app.client, app.appId);
    const cashier = freshAddress();
    const pos = (pw: string) => post(`${kit.url}/pos/api/login`, { userId: own.subId, pw }, cashier);
    for (let i = 0; i < 3; i++) expect((await pos('not it at all')).status).toBe(401);
    const locked = await pos(own.pw);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: 'login_throttled' });
    expect(Number(locked.retryAfter)).toBeGreaterThanOrEqual(1);
    // The account is locked on 4.16 too: one limit for every login.
    expect((await login(own.subId, own.pw)).status).toBe(429);
  });

  it("throttles the mini-program's login-code exchange by the payer's address", async () => {
    const f = await payFixture(kit);
    const prepayId = await newOrder(f, '1.00');
    const payer = freshAddress();
    const pay = (code: string) => post(`${kit.url}/mp/api/pay`, { prepayId, code }, payer);
    for (let i = 0; i < 3; i++) expect((await pay(`forged-code-${i}`)).body.error).toBe('mp_login_failed');
    const code = (await sandboxPost(kit.url, '/login', { user: 'payer-throttled' })).body.code as string;
    const locked = await pay(code);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: 'login_throttled' });
  });
});

const pg = backends().find((b) => b.name === 'postgres');
(pg ? describe : describe.skip)('login brute-force limit across two instances sharing PostgreSQL', () => {
  it('counts failures on either instance against the same account', async () => {
    const env = { ...pg!.env(), ...PROXY_ENV, LOGIN_MAX_FAILURES: '4' };
    const a = await startTestKit(pg!, env);
    const b = await startTestKit(pg!, env);
    try {
      const app = await a.newApp();
      const { parentId, pw } = await createMerchants(app.client, app.appId);
      for (const k of [a, b, a, b]) expect((await post(`${k.url}/merchant/login`, { userId: parentId, pw: 'wrong!' }, freshAddress())).status).toBe(401);
      for (const k of [a, b]) expect((await post(`${k.url}/merchant/login`, { userId: parentId, pw }, freshAddress())).status).toBe(429);
    } finally {
      await a.close();
      await b.close();
      await pg!.cleanup();
    }
  });
});
