/** The signature check (docs/signing.md) as a client meets it: every way a signature can be wrong is a 401. */
import { KitClient, encodeQuery, nextTimestamp, signRequest } from '@kit/shared';
import { startRuntime } from '../../src/runtime';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV, createMerchants, startTestKit, type TestKit } from '../support/kit';

describeEachBackend('signed requests', (backend) => {
  let kit: TestKit;
  let app: Awaited<ReturnType<TestKit['newApp']>>;
  let subId: string;
  beforeAll(async () => {
    kit = await startTestKit(backend);
    app = await kit.newApp();
    ({ subId } = await createMerchants(app.client, app.appId));
  });
  afterAll(() => kit.close());

  const send = (path: string, query: Array<[string, string]>, body?: string, method = 'POST') =>
    fetch(`${kit.url}${path}?${encodeQuery(query)}`, { method, body, headers: body ? { 'content-type': 'application/json' } : {} });
  const orderBody = () => JSON.stringify({ subMerchantId: subId, totalAmount: '3.00', orderId: null });

  it('accepts a correctly signed request', async () => {
    const body = orderBody();
    const res = await send('/submerchant-pay/', signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app), body);
    expect(res.status).toBe(200);
  });

  const cases: Array<[string, () => { query: Array<[string, string]>; body: string }, string]> = [
    ['no signature at all', () => ({ query: [], body: orderBody() }), 'signature_missing'],
    [
      'a missing _s',
      () => ({ query: signRequest({ method: 'POST', path: '/submerchant-pay/', body: orderBody() }, app).filter(([k]) => k !== '_s'), body: orderBody() }),
      'signature_missing',
    ],
    [
      'a stale _t (6 minutes old)',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app, Date.now() - 360_000), body };
      },
      'timestamp_out_of_window',
    ],
    [
      'a _t from the future',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app, Date.now() + 360_000), body };
      },
      'timestamp_out_of_window',
    ],
    [
      'a _t in seconds',
      () => {
        const body = orderBody();
        const q = signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app).map(
          ([k, v]) => [k, k === '_t' ? v.slice(0, 10) : v] as [string, string],
        );
        return { query: q, body };
      },
      'timestamp_invalid',
    ],
    [
      'a wrong secret',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'POST', path: '/submerchant-pay/', body }, { appId: app.appId, appSecret: 'not-the-secret' }), body };
      },
      'signature_mismatch',
    ],
    [
      'an unknown app',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'POST', path: '/submerchant-pay/', body }, { appId: 'app_ghost', appSecret: 'x' }), body };
      },
      'signature_mismatch',
    ],
    [
      'a body changed after signing',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app), body: body.replace('3.00', '30.00') };
      },
      'signature_mismatch',
    ],
    [
      'the same JSON re-serialised with other spacing',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app), body: JSON.stringify(JSON.parse(body), null, 1) };
      },
      'signature_mismatch',
    ],
    [
      'a signature for another path',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'POST', path: '/merchant', body }, app), body };
      },
      'signature_mismatch',
    ],
    [
      'a signature for another method',
      () => {
        const body = orderBody();
        return { query: signRequest({ method: 'PUT', path: '/submerchant-pay/', body }, app), body };
      },
      'signature_mismatch',
    ],
    [
      'an extra query field added after signing',
      () => {
        const body = orderBody();
        return { query: [...signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app), ['x', '1']], body };
      },
      'signature_mismatch',
    ],
  ];

  it.each(cases)('refuses %s with 401 in the failure shape, creating nothing', async (_what, make, error) => {
    const before = await kit.runtime.db.db
      .selectFrom('prepay_orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    const { query, body } = make();
    const res = await send('/submerchant-pay/', query, body);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      version: 1,
      status: 'fail',
      error,
      code: expect.stringMatching(/^E0\d+$/),
      msg: expect.any(String),
      traceId: expect.any(String),
    });
    const after = await kit.runtime.db.db
      .selectFrom('prepay_orders')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(Number(after!.n)).toBe(Number(before!.n));
  });

  it('refuses a replayed state-changing request', async () => {
    const body = orderBody();
    const query = signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app);
    expect((await send('/submerchant-pay/', query, body)).status).toBe(200);
    const again = await send('/submerchant-pay/', query, body);
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ error: 'signature_replayed' });
    // A retry signed anew is fine.
    expect((await send('/submerchant-pay/', signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app), body)).status).toBe(200);
  });

  it('lets a read be repeated with the same signature (reads change nothing)', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: subId, totalAmount: '1.00' });
    const path = `/submerchant-pay/prePay/${prepayId}`;
    const query = signRequest({ method: 'GET', path }, app);
    expect((await send(path, query, undefined, 'GET')).status).toBe(200);
    expect((await send(path, query, undefined, 'GET')).status).toBe(200);
  });

  it('signs query values that need encoding exactly as sent', async () => {
    const { prepayId } = await app.client.createPrepay({ subMerchantId: subId, totalAmount: '1.00' });
    const path = `/submerchant-pay/prePay/${prepayId}`;
    const query = signRequest({ method: 'GET', path, query: { note: 'a b/中+&=' } }, app);
    expect((await send(path, query, undefined, 'GET')).status).toBe(200);
  });

  it('tells the sender of a non-JSON body what is wrong', async () => {
    const body = 'subMerchantId=SM1';
    const query = signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app);
    const res = await fetch(`${kit.url}/submerchant-pay/?${encodeQuery(query)}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ status: 'fail', error: 'unsupported_media_type' });
  });

  it('refuses a body over the limit with 413, not 5xx', async () => {
    const body = JSON.stringify({ subMerchantId: subId, totalAmount: '1.00', extraInfo: 'x'.repeat(300_000) });
    const res = await send('/submerchant-pay/', signRequest({ method: 'POST', path: '/submerchant-pay/', body }, app), body);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ status: 'fail', error: 'body_too_large' });
  });

  it('answers an unknown route with 404 in the failure shape and a traceId matching x-request-id', async () => {
    const res = await fetch(`${kit.url}/nowhere`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'fail', error: 'route_not_found' });
    expect(body.traceId).toBe(res.headers.get('x-request-id'));
  });

  it('never answers 5xx for malformed percent-encoding', async () => {
    const res = await fetch(`${kit.url}/submerchant-pay/prePay/abc?_appid=%E0%A4%A&_t=1&_s=2`);
    expect(res.status).toBeLessThan(500);
    expect(res.status).toBeGreaterThanOrEqual(400);
  });
});

describeEachBackend('signed requests under a BASE_PATH', (backend) => {
  it('signs paths relative to the base URL', async () => {
    const kit = await startTestKit(backend, { BASE_PATH: '/kit' });
    try {
      const app = await kit.newApp();
      expect(kit.url).toMatch(/\/kit$/);
      const { subId } = await createMerchants(app.client, app.appId);
      const order = await app.client.createPrepay({ subMerchantId: subId, totalAmount: '2.50' });
      expect((await app.client.prepayDetail(order.prepayId)).totalAmount).toBe('2.50');
    } finally {
      await kit.close();
    }
  });
});

describeEachBackend('replay refusal', (backend) => {
  it('outlives a restart: a signed creation refused as a replay before is refused after, and only one order exists', async () => {
    const env = { ...TEST_ENV, ...backend.env() };
    let runtime = await startRuntime(env);
    try {
      const creds = await runtime.services.apps.create('replay');
      const client = new KitClient({ baseUrl: runtime.url, ...creds });
      const { subId } = await createMerchants(client, creds.appId);
      const body = JSON.stringify({ subMerchantId: subId, totalAmount: '3.00', orderId: null });
      const query = encodeQuery(signRequest({ method: 'POST', path: '/submerchant-pay/', body }, creds));
      const send = () => fetch(`${runtime.url}/submerchant-pay/?${query}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect((await send()).status).toBe(200);
      const replayed = await send();
      expect(replayed.status).toBe(401);
      expect(await replayed.json()).toMatchObject({ error: 'signature_replayed' });
      await runtime.close();
      runtime = await startRuntime(env);
      const after = await send();
      expect(after.status).toBe(401);
      expect(await after.json()).toMatchObject({ error: 'signature_replayed' });
      const orders = await runtime.db.db.selectFrom('prepay_orders').select('prepay_id').where('sub_merchant_id', '=', subId).execute();
      expect(orders).toHaveLength(1);
    } finally {
      await runtime.close();
    }
  });

  it('two clients making the same call in the same millisecond both get through: _t is strictly increasing per process', async () => {
    const kit = await startTestKit(backend);
    try {
      const app = await kit.newApp();
      const { parentId } = await createMerchants(app.client, app.appId);
      const twin = new KitClient({ baseUrl: kit.url, appId: app.appId, appSecret: app.appSecret });
      const same = { socialMchId: '1900000001', socialAppId: 'wxsame' };
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? twin : app.client).call('PUT', '/merchant/paymentParams', { body: { id: parentId, paymentChannel: 'SocialNative', parameters: same } }),
        ),
      );
      expect(answers.map((a) => a.httpStatus)).toEqual(Array(40).fill(200));
      const ts = Array.from({ length: 1000 }, () => nextTimestamp());
      expect(new Set(ts).size).toBe(1000);
      expect([...ts].sort((a, b) => a - b)).toEqual(ts);
    } finally {
      await kit.close();
    }
  });

  it("a clock moved hours ahead leaves the other clocks' _t where they are, and no _t is handed out twice", () => {
    const ahead = { now: () => Date.now() + 7_200_000 };
    const aheadTs = Array.from({ length: 50 }, () => nextTimestamp(ahead.now(), ahead));
    const machineTs = Array.from({ length: 50 }, () => nextTimestamp());
    expect(Math.max(...machineTs) - Date.now()).toBeLessThan(3_600_000);
    expect(new Set([...aheadTs, ...machineTs]).size).toBe(100);
    const stillAt = { now: () => aheadTs[0] };
    const clashing = Array.from({ length: 10 }, () => nextTimestamp(stillAt.now(), stillAt));
    expect(clashing.filter((t) => aheadTs.includes(t))).toEqual([]);
  });
});
