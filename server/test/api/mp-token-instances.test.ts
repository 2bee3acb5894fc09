/**
 * Two instances on one PostgreSQL schema share the deployment's mini-program access token
 * (docs/operations.md): one `stable_token` call for many codes across both, one refresh before it
 * expires, one forced refresh when the platform invalidated it.
 */
import { backends } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { sandboxPost } from '../support/payments';
import { startPlatformProxy, type PlatformProxy } from '../support/platform-proxy';
import { Cashier, callsOf, decodePng, payerLink } from '../support/mini-program';

const pg = backends().find((b) => b.name === 'postgres');
const describePg = pg ? describe : describe.skip;

/**
 * Two instances on one schema, both calling the platform through one proxy in front of the first one's
 * sandbox, on one clock (the first one's): moving it ages the token for both and for the platform.
 */
async function pair(env: NodeJS.ProcessEnv = {}) {
  const proxy = await startPlatformProxy();
  const shared = { ...pg!.env(), MP_API_URL: proxy.url, LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent', ...env };
  const a = await startTestKit(pg!, shared);
  const b = await startTestKit(pg!, shared, { clock: a.clock });
  proxy.target = `${a.url}/sandbox`;
  const app = await a.newApp();
  const shop = await createMerchants(app.client, app.appId);
  const onA = new Cashier(a.url);
  const onB = new Cashier(b.url);
  await onA.login(shop.subId, shop.pw);
  await onB.login(shop.subId, shop.pw);
  return { proxy, a, b, onA, onB };
}

/** Codes for `n` new orders, asked at once, every other one on each instance. */
async function codesAtOnce(onA: Cashier, onB: Cashier, n: number, kitUrl: string) {
  const ids = await Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? onB : onA).order(`${i + 1}.00`)));
  const codes = await Promise.all(ids.map((id, i) => (i % 2 ? onB : onA).code(id)));
  codes.forEach((c, i) => {
    expect(c.status).toBe(200);
    expect(decodePng(c.image)).toBe(payerLink(kitUrl, ids[i]));
  });
}

describePg('two instances sharing the mini-program access token (PostgreSQL)', () => {
  const kits: TestKit[] = [];
  const proxies: PlatformProxy[] = [];
  afterAll(async () => {
    for (const k of kits) await k.close();
    for (const p of proxies) await p.close();
    await pg!.cleanup();
  });

  it('one stable_token call serves many codes across both; an invalidated token costs one forced refresh across both', async () => {
    const { proxy, a, b, onA, onB } = await pair();
    kits.push(a, b);
    proxies.push(proxy);
    await codesAtOnce(onA, onB, 12, a.url);
    expect(callsOf(proxy.calls, 'stable_token')).toHaveLength(1);
    expect(callsOf(proxy.calls, 'getwxacodeunlimit')).toHaveLength(12);

    // Someone invalidated the token: both instances find out at once; one forces, the other uses its token.
    await sandboxPost(a.url, '/faults', { mpTokens: 'revoked' });
    const before = proxy.calls.length;
    await codesAtOnce(onA, onB, 8, a.url);
    const tokens = callsOf(proxy.calls.slice(before), 'stable_token');
    expect(tokens.map((c) => c.json.force_refresh)).toEqual([true]);
    await sandboxPost(a.url, '/faults', {});
  });

  it('refreshes the token before it expires, once, while both keep drawing codes', async () => {
    // Tokens of 5 min 4 s: 4 s after one was handed out, less than the 5-minute margin is left.
    const { proxy, a, b, onA, onB } = await pair({ SANDBOX_MP_TOKEN_TTL: '304s' });
    kits.push(a, b);
    proxies.push(proxy);
    await codesAtOnce(onA, onB, 2, a.url);
    expect(callsOf(proxy.calls, 'stable_token')).toHaveLength(1);
    await a.advance(4_200);
    await b.settle();
    const before = proxy.calls.length;
    await codesAtOnce(onA, onB, 6, a.url);
    const calls = proxy.calls.slice(before);
    expect(callsOf(calls, 'stable_token').map((c) => c.json.force_refresh)).toEqual([false]);
    // The others kept using the old token meanwhile; the next codes use the new one.
    const tokenOf = (c: { url: string }) => new URL(c.url, 'http://x').searchParams.get('access_token');
    const first = tokenOf(callsOf(proxy.calls, 'getwxacodeunlimit')[0]);
    const next = proxy.calls.length;
    await codesAtOnce(onA, onB, 2, a.url);
    expect(callsOf(proxy.calls.slice(next), 'getwxacodeunlimit').map(tokenOf)).toEqual([expect.not.stringMatching(first!), expect.not.stringMatching(first!)]);
  });
});
