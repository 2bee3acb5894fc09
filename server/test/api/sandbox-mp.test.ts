/**
 * The sandbox plays the platform's mini-program server API (docs/sandbox.md): `stable_token` with
 * tokens that expire and forced refreshes that leave the old token 5 minutes, and `getwxacodeunlimit`
 * checking the token, the scene, the page and the version, answering a PNG a phone can scan.
 */
import { describeEachBackend } from '../support/backends';
import { sandboxTables, startTestKit, type TestKit } from '../support/kit';
import { sandboxPost } from '../support/payments';
import { decodePng } from '../support/mini-program';

const CREDENTIALS = { grant_type: 'client_credential', appid: 'wx5andb0xmp000001', secret: 'sandbox-mini-program-secret' };

describeEachBackend("the sandbox's mini-program server API", (backend) => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(backend);
  });
  afterAll(() => kit?.close());

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${kit.url}/sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    return res.headers.get('content-type')!.startsWith('image/') ? { png: Buffer.from(await res.arrayBuffer()) } : ((await res.json()) as any);
  };
  const token = (force = false) => post('/cgi-bin/stable_token', { ...CREDENTIALS, force_refresh: force });
  const code = (accessToken: string, body: object) => post(`/wxa/getwxacodeunlimit?access_token=${encodeURIComponent(accessToken)}`, body);
  const scene = 'sm.pay?prepayid=Ab3dE6gH9jK1';

  it('answers the same token while it lasts, and refuses wrong credentials as the platform does (HTTP 200, errcode)', async () => {
    const first = await token();
    expect(first).toEqual({ access_token: expect.stringMatching(/^sbx_/), expires_in: 7200 });
    expect((await token()).access_token).toBe(first.access_token);
    expect(await post('/cgi-bin/stable_token', { ...CREDENTIALS, secret: 'wrong' })).toEqual({ errcode: 40125, errmsg: 'invalid appsecret' });
    expect(await post('/cgi-bin/stable_token', { ...CREDENTIALS, appid: 'wxother' })).toMatchObject({ errcode: 40013 });
    expect(await post('/cgi-bin/stable_token', { ...CREDENTIALS, grant_type: 'password' })).toMatchObject({ errcode: 40002 });
  });

  it('a forced refresh gives a new token, leaves the old one 5 minutes, and may not come again within 30 s', async () => {
    const old = (await token()).access_token;
    const forced = await token(true);
    expect(forced.access_token).not.toBe(old);
    const rows = await sandboxTables(kit).selectFrom('sandbox_mp_tokens').selectAll().where('token', '=', old).execute();
    expect(rows[0].expires_at - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(rows[0].expires_at - Date.now()).toBeGreaterThan(4 * 60_000);
    // Both work meanwhile; a normal call answers the new one.
    expect(await code(old, { scene })).toHaveProperty('png');
    expect(await code(forced.access_token, { scene })).toHaveProperty('png');
    expect((await token()).access_token).toBe(forced.access_token);
    expect(await token(true)).toMatchObject({ errcode: 45011 });
  });

  it('refuses tokens that are malformed, unknown, expired or revoked by the mpTokens fault', async () => {
    const valid = (await token()).access_token;
    expect(await code('nonsense', { scene })).toMatchObject({ errcode: 40014 });
    expect(await code(`sbx_${'A'.repeat(32)}`, { scene })).toMatchObject({ errcode: 40001 });
    await sandboxTables(kit)
      .updateTable('sandbox_mp_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('token', '=', valid)
      .execute();
    expect(await code(valid, { scene })).toEqual({ errcode: 42001, errmsg: 'access_token expired' });
    const fresh = (await token()).access_token;
    expect(fresh).not.toBe(valid);
    await sandboxPost(kit.url, '/faults', { mpTokens: 'revoked' });
    expect(await code(fresh, { scene })).toMatchObject({ errcode: 40001 });
    // A normal call now gets the platform's new current token, which works.
    const after = (await token()).access_token;
    expect(after).not.toBe(fresh);
    expect(await code(after, { scene })).toHaveProperty('png');
    await sandboxPost(kit.url, '/faults', {});
  });

  it("checks the scene's length and characters, the page and the version", async () => {
    const t = (await token()).access_token;
    expect(await code(t, { scene: `sm.pay?prepayid=${'x'.repeat(17)}` })).toMatchObject({ errcode: 40169 });
    expect(await code(t, { scene: 'sm.pay?prepayid=a b' })).toMatchObject({ errcode: 40169 });
    expect(await code(t, { scene: 'sm.pay?prepayid=a%20b' })).toMatchObject({ errcode: 40169 });
    expect(await code(t, { scene, page: 'pages/nowhere/index' })).toMatchObject({ errcode: 41030 });
    expect(await code(t, { scene, page: '/pages/pay/index' })).toMatchObject({ errcode: 41030 });
    expect(await code(t, { scene, page: 'pages/nowhere/index', check_path: false, env_version: 'develop' })).toHaveProperty('png');
    expect(await code(t, { scene, env_version: 'beta' })).toMatchObject({ errcode: 40097 });
    expect(await post(`/wxa/getwxacodeunlimit?access_token=${t}`, 'not an object')).toMatchObject({ errcode: 47001 });
  });

  it('draws a PNG that leads to the payer page with the same scene', async () => {
    const t = (await token()).access_token;
    const { png } = await code(t, { scene: `${scene}&f=2`, page: 'pages/pay/index', check_path: true, env_version: 'release', width: 430 });
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(decodePng(png)).toBe(`${kit.url}/mp/#/pages/pay/index?scene=${encodeURIComponent(`${scene}&f=2`)}`);
  });
});
