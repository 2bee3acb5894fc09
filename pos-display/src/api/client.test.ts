import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import { createHttpApi } from './client';

function fetchAnswering(status: number, body: unknown, seen: Array<{ url: string; init: RequestInit }> = []) {
  return (async (url: string, init: RequestInit) => {
    seen.push({ url, init });
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
}

describe('POS HTTP API', () => {
  it('sends JSON to the router relative to the page, with the cookie, and returns the answer', async () => {
    const seen: Array<{ url: string; init: RequestInit }> = [];
    const api = createHttpApi({ base: 'api/', fetch: fetchAnswering(200, { version: 1, status: 'success', order: { prepayId: 'P1' } }, seen) });
    const a = await api.createOrder('1.00');
    expect(a.order.prepayId).toBe('P1');
    expect(seen[0].url).toBe('api/orders');
    expect(seen[0].init).toMatchObject({ method: 'POST', credentials: 'same-origin', body: '{"amount":"1.00"}' });
    expect((seen[0].init.headers as Record<string, string>)['content-type']).toBe('application/json');
    await api.waitOrder('P 1');
    expect(seen[1].url).toBe('api/orders/P%201/wait');
  });

  it('reports a 401 as an ended login, except for a refused login', async () => {
    const onUnauthorized = jest.fn();
    const api = createHttpApi({ fetch: fetchAnswering(401, { status: 'fail', error: 'login_invalid', msg: 'x' }), onUnauthorized });
    await expect(api.listOrders(0)).rejects.toBeInstanceOf(KitApiError);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    const login = createHttpApi({ fetch: fetchAnswering(401, { status: 'fail', error: 'login_failed', msg: 'x' }), onUnauthorized });
    await expect(login.login('SM1', 'pw')).rejects.toMatchObject({ httpStatus: 401, error: 'login_failed' });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('turns a dead network or an unreadable answer into a network error', async () => {
    const down = createHttpApi({
      fetch: (async () => {
        throw new TypeError('Failed to fetch');
      }) as unknown as typeof fetch,
    });
    const e = await down.session().catch((x) => x);
    expect(e).toBeInstanceOf(KitNetworkError);
    const html = createHttpApi({ fetch: fetchAnswering(502, '<html>bad gateway</html>') });
    await expect(html.session()).rejects.toBeInstanceOf(KitNetworkError);
  });
});
