/**
 * The reference page's in-browser signer (WebCrypto, which Node has too) reproduces the published
 * vectors under any base path, and knows which operations of a document are signed.
 */
import { SIGNING_VECTORS, verify } from '@kit/shared';
import { signUrl, signedOperations } from './try-it';

describe('Try it signing', () => {
  it.each(['http://127.0.0.1:8080/', 'https://shop.example/kit/'])('reproduces the published vectors under %s', async (base) => {
    for (const v of SIGNING_VECTORS) {
      const t = Number(v.query.find(([k]) => k === '_t')![1]);
      const appId = v.query.find(([k]) => k === '_appid')![1];
      const own = v.query.filter(([k]) => k !== '_t' && k !== '_appid');
      const url = new URL(v.path.slice(1), base);
      for (const [k, val] of own) url.searchParams.append(k, val);
      const signed = new URL(await signUrl({ method: v.method, url: url.href, body: v.body }, base, { appId, appSecret: v.appSecret }, t));
      expect(signed.searchParams.get('_s')).toBe(v.signature);
      // What the service reads back from the URL verifies, and the secret is nowhere in it.
      const query = [...signed.searchParams] as Array<[string, string]>;
      const path = signed.pathname.slice(new URL(base).pathname.length - 1);
      expect(verify({ method: v.method, path, query, body: v.body }, () => v.appSecret, { now: t }).ok).toBe(true);
      expect(signed.href).not.toContain(v.appSecret);
    }
  });

  it('signs again over a query that already carried signature fields, keeping one of each', async () => {
    const url = await signUrl(
      { method: 'GET', url: 'http://h/reconciliation?_appid=x&_t=1&_s=y&limit=5', body: '' },
      'http://h/',
      { appId: 'app_a', appSecret: 's' },
      1_700_000_000_000,
    );
    const q = new URL(url).searchParams;
    expect([q.getAll('_appid'), q.getAll('_t'), q.getAll('_s').length, q.get('limit')]).toEqual([['app_a'], ['1700000000000'], 1, '5']);
  });

  it('finds the signed operations of a document, path parameters included', () => {
    const ops = signedOperations({
      paths: {
        '/submerchant-pay/prePay/{prepayId}': { get: { security: [{ appId: [], timestamp: [], signature: [] }] } },
        '/health': { get: { security: [] } },
        '/console/api/orders': { get: { security: [{ consoleLogin: [] }] } },
      },
    });
    expect(ops.map((o) => o.method)).toEqual(['GET']);
    expect(ops[0].pattern.test('/submerchant-pay/prePay/Qx81Fk2LmZ0a')).toBe(true);
    expect(ops[0].pattern.test('/submerchant-pay/prePay/a/b')).toBe(false);
  });
});
