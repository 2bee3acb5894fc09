/**
 * The rules every endpoint follows (docs/api.md) as a client meets them, on every backend: 405 for a
 * known path asked with another method, and text that is not well-formed Unicode refused with 400
 * before it reaches a rule, the database or the ledger.
 */
import { encodeQuery, signRequest } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';

describeEachBackend('conformance', (backend) => {
  let kit: TestKit;
  let app: Awaited<ReturnType<TestKit['newApp']>>;
  let subId: string;
  beforeAll(async () => {
    kit = await startTestKit(backend);
    app = await kit.newApp();
    ({ subId } = await createMerchants(app.client, app.appId));
  });
  afterAll(() => kit.close());

  const count = async (table: 'prepay_orders' | 'chain_items' | 'merchants') =>
    Number(
      (await kit.runtime.db.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst())!.n,
    );

  describe('a known path with a wrong method', () => {
    it.each([
      ['GET', '/submerchant-pay/', 1, 'POST'],
      ['DELETE', '/submerchant-pay/prePay/abc123', 1, 'GET, HEAD'],
      ['GET', '/submerchant-pay/refund', 1, 'POST'],
      ['PUT', '/submerchant-pay/socialPayNative', 1, 'POST'],
      ['POST', '/merchant/paymentParams', 1, 'PUT'],
      ['GET', '/merchant/login', 1, 'POST'],
      ['GET', '/common-chain-upload/', '1', 'POST'],
      ['PUT', '/donation/project', '1', 'POST'],
      ['POST', '/fungible-token/balance', '1', 'GET, HEAD'],
    ] as const)('%s %s answers 405 method_not_allowed with version %p and Allow: %s', async (method, path, version, allow) => {
      const res = await fetch(`${kit.url}${path}`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(await res.json()).toMatchObject({ version, status: 'fail', error: 'method_not_allowed', code: 'E0007', msg: expect.stringContaining(method) });
    });

    it('also on the notification and sandbox paths; an unknown path stays 404', async () => {
      expect((await fetch(`${kit.url}/pay-notify/social/pay`)).status).toBe(405);
      expect((await fetch(`${kit.url}/sandbox/pay/unifiedorder`)).status).toBe(405);
      expect((await fetch(`${kit.url}/sandbox/pay`, { method: 'GET' })).status).toBe(405);
      const unknown = await fetch(`${kit.url}/submerchant-pay/nothing-here`, { method: 'POST' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: 'route_not_found' });
    });

    it('OPTIONS on a known path lists its methods', async () => {
      const res = await fetch(`${kit.url}/merchant/paymentParams`, { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe('PUT, OPTIONS');
    });
  });

  describe('text that is not well-formed Unicode', () => {
    const signedPost = (path: string, raw: string | Buffer): Promise<Response> => {
      const query = signRequest({ method: 'POST', path, body: raw }, app);
      const body = typeof raw === 'string' ? raw : new Uint8Array(raw);
      return fetch(`${kit.url}${path}?${encodeQuery(query)}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    };

    it.each([
      [
        'an order extraInfo',
        '/submerchant-pay/',
        (): string => `{"subMerchantId":"${subId}","totalAmount":"1.00","orderId":null,"extraInfo":{"note":"\\ud800"}}`,
        'prepay_orders',
      ],
      [
        'a key of extraInfo',
        '/submerchant-pay/',
        (): string => `{"subMerchantId":"${subId}","totalAmount":"1.00","orderId":null,"extraInfo":{"\\udfff":1}}`,
        'prepay_orders',
      ],
      ['a chain item id', '/common-chain-upload/', (): string => '{"items":[{"type":"record","args":{"id":"\\ud800"}}]}', 'chain_items'],
      [
        'a point type name',
        '/common-chain-upload/',
        (): string => `{"items":[{"type":"points.create","args":{"id":"pt-1","tokenId":"PTS","name":"\\ud800"}}]}`,
        'chain_items',
      ],
      [
        'a merchant name',
        '/merchant',
        (): string => `{"type":"merchant","parameters":{"displayName":"a\\udc00b","pw":"long enough pw","appId":"${app.appId}"}}`,
        'merchants',
      ],
    ] as const)('a lone surrogate in %s: 400 and nothing stored', async (_what, path, body, table) => {
      const before = await count(table);
      const res = await signedPost(path, body());
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ status: 'fail', error: 'invalid_request', msg: expect.stringMatching(/well-formed Unicode/) });
      expect(await count(table)).toBe(before);
    });

    it('a well-formed pair written as escapes is fine', async () => {
      const res = await signedPost(
        '/submerchant-pay/',
        `{"subMerchantId":"${subId}","totalAmount":"1.00","orderId":null,"extraInfo":{"note":"\\ud83d\\ude00 \\\\ud800"}}`,
      );
      expect(res.status).toBe(200);
      const { prepayId } = (await res.json()) as { prepayId: string };
      expect((await kit.runtime.services.prepay.find(prepayId))!.extra_info).toBe('{"note":"😀 \\\\ud800"}');
    });

    it('bytes that are not UTF-8 in a body: 400', async () => {
      const raw = Buffer.concat([
        Buffer.from(`{"subMerchantId":"${subId}","totalAmount":"1.00","orderId":null,"extraInfo":"`),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('"}'),
      ]);
      const before = await count('prepay_orders');
      const res = await signedPost('/submerchant-pay/', raw);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_request', msg: expect.stringMatching(/UTF-8/) });
      expect(await count('prepay_orders')).toBe(before);
    });

    it('a lone surrogate (or other bytes that are not UTF-8) in a query: 400', async () => {
      const signed = encodeQuery(
        signRequest(
          { method: 'GET', path: '/fungible-token/balance', query: { tokenId: 'PTS', tokenAppId: app.appId, userAppId: app.appId, userId: 'u' } },
          app,
        ),
      );
      for (const bad of ['%ED%A0%80', '%FF', '%E4%B8']) {
        const res = await fetch(`${kit.url}/fungible-token/balance?${signed.replace('userId=u', `userId=u${bad}`)}`);
        expect([bad, res.status]).toEqual([bad, 400]);
        expect(await res.json()).toMatchObject({ version: '1', status: 'fail', error: 'invalid_request' });
      }
    });
  });
});
