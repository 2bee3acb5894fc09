import { systemClock } from '@kit/shared/clock';
import { KitError } from '@kit/shared';
import { PayerLogin } from './payer-login';

const reply = (status: number, body: string) => jest.fn(async (_url: URL | string) => new Response(body, { status }));

function login(fetchImpl: jest.Mock, over: Partial<ConstructorParameters<typeof PayerLogin>[0]> = {}) {
  return new PayerLogin({
    appId: 'wxapp',
    secret: 's3cret-value',
    loginUrl: () => 'http://login.test/sns/jscode2session?x=1',
    fetch: fetchImpl as unknown as typeof fetch,
    clock: systemClock,
    ...over,
  });
}

async function failure(p: Promise<unknown>): Promise<KitError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof KitError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe('PayerLogin', () => {
  it('exchanges a code for the open id with the jscode2session query', async () => {
    const f = reply(200, JSON.stringify({ openid: 'o-123', session_key: 'k' }));
    expect(await login(f).openIdFor('the-code')).toBe('o-123');
    const url = new URL(String(f.mock.calls[0][0]));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      x: '1',
      appid: 'wxapp',
      secret: 's3cret-value',
      js_code: 'the-code',
      grant_type: 'authorization_code',
    });
  });

  it('turns an errcode into mp_login_failed without quoting the secret', async () => {
    const e = await failure(login(reply(200, JSON.stringify({ errcode: 40029, errmsg: 'invalid code' }))).openIdFor('c'));
    expect(e.error).toBe('mp_login_failed');
    expect(e.message).toContain('40029');
    expect(e.message).not.toContain('s3cret-value');
  });

  it('reports an unreachable or broken login service as mp_login_unavailable', async () => {
    expect((await failure(login(reply(502, 'bad gateway')).openIdFor('c'))).error).toBe('mp_login_unavailable');
    expect((await failure(login(reply(200, '<html>')).openIdFor('c'))).error).toBe('mp_login_unavailable');
    const down = jest.fn(async () => {
      throw new TypeError('fetch failed: http://login.test/?secret=s3cret-value');
    });
    const e = await failure(login(down).openIdFor('c'));
    expect(e.error).toBe('mp_login_unavailable');
    expect(e.message).not.toContain('s3cret-value');
  });

  it('refuses to run without an appid and secret', async () => {
    const f = reply(200, '{}');
    expect((await failure(login(f, { secret: undefined }).openIdFor('c'))).error).toBe('mp_not_configured');
    expect(f).not.toHaveBeenCalled();
  });
});
