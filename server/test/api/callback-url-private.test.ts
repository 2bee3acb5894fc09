/**
 * CALLBACK_ALLOW_PRIVATE=off: 4.7 refuses callback URLs inside the operator's network however the
 * host is written, and delivery checks the address it actually connects to, so a URL stored while
 * private addresses were allowed (or a name that resolves to one) is never called. Real HTTP, every
 * backend.
 */
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit } from '../support/kit';
import { newOrder, payByCode, payFixture, startReceiver } from '../support/payments';
import { waitFor } from '../support/wait';

const INSIDE = [
  'http://127.0.0.1/cb',
  'http://localhost:8080/cb',
  'http://LOCALHOST./cb',
  'http://[::1]/cb',
  'http://0.0.0.0/cb',
  'http://127.1/cb',
  'http://2130706433/cb',
  'http://0x7f.1/cb',
  'http://0177.0.0.1/cb',
  'http://169.254.169.254/latest/meta-data/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://10.1.2.3:5432/',
  'http://192.168.1.1:6379/',
  'http://172.16.0.1/cb',
  'http://100.64.0.1/cb',
  'http://[fd00::1]/cb',
  'http://[fe80::1]/cb',
  'http://[::ffff:127.0.0.1]/cb',
  'http://[::ffff:a9fe:a9fe]/cb',
  'http://[::]/cb',
  'https://api.localhost/cb',
];

describeEachBackend('callback URLs inside the operator network', (backend) => {
  it('4.7 refuses them with 400 url_not_public and stores nothing; public addresses are accepted', async () => {
    const kit = await startTestKit(backend, { CALLBACK_ALLOW_PRIVATE: 'off' });
    try {
      const f = await payFixture(kit, { notifyCallbackUrl: 'http://203.0.113.10/cb' });
      for (const url of INSIDE) {
        const a = await f.client.call('PUT', '/merchant/paymentParams', {
          body: { id: f.parentId, paymentChannel: 'SocialNative', parameters: { notifyCallbackUrl: url } },
        });
        expect([url, a.httpStatus, a.body.error, a.body.code]).toEqual([url, 400, 'url_not_public', 'E0026']);
        expect(a.body.msg).toMatch(/notifyCallbackUrl: .*operator's network/);
      }
      const stored = await kit.runtime.services.merchants.effectivePaymentParams(f.parentId, 'SocialNative');
      expect(stored).toMatchObject({ notifyCallbackUrl: 'http://203.0.113.10/cb' });
      const ok = await f.client.call('PUT', '/merchant/paymentParams', {
        body: { id: f.parentId, paymentChannel: 'SocialNative', parameters: { notifyCallbackUrl: 'https://[2001:db8::1]:8443/hooks' } },
      });
      expect(ok.httpStatus).toBe(200);
    } finally {
      await kit.close();
    }
  });

  it('delivery checks the address it connects to: URLs stored while allowed, by address or by a name resolving inside, are never called', async () => {
    const receiver = await startReceiver();
    const env = backend.env();
    const before = await startTestKit(backend, { ...env, CALLBACK_ALLOW_PRIVATE: 'on' });
    let byName: Awaited<ReturnType<typeof payFixture>>;
    let byAddress: Awaited<ReturnType<typeof payFixture>>;
    try {
      byAddress = await payFixture(before, { notifyCallbackUrl: `${receiver.url}/by-address` });
      byName = await payFixture(before, { notifyCallbackUrl: `http://localhost:${receiver.port}/by-name` });
    } finally {
      await before.close();
    }
    const kit = await startTestKit(backend, { ...env, CALLBACK_ALLOW_PRIVATE: 'off' });
    try {
      for (const f of [byAddress, byName]) {
        const client = new KitClient({ baseUrl: kit.url, appId: f.appId, appSecret: f.appSecret });
        const g = { ...f, client };
        const prepayId = await newOrder(g);
        await payByCode(kit, g, prepayId);
        const [row] = await waitFor(async () => {
          const h = await kit.runtime.services.callbacks.history(prepayId);
          return h[0]?.attemptLog.length ? h : undefined;
        }, 'the first attempt');
        expect(row.attemptLog[0]).toMatchObject({ http_status: null, error: expect.stringMatching(/(127\.0\.0\.1|::1).*operator's network/) });
      }
      expect(receiver.received).toEqual([]);
    } finally {
      await kit.close();
      await receiver.close();
    }
  }, 40_000);
});
