/** `npm run kit -- demo create` gives a newcomer something to log in with at /pos/. */
import { KitClient } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit } from '../support/kit';
import { runKitCommand } from '../support/process';

describeEachBackend('kit demo create', (backend) => {
  it('creates an app and merchants a cashier can log in with and take an order for', async () => {
    const env = backend.env();
    const kit = await startTestKit(backend, env);
    try {
      // As an operator runs it: its own process next to the running service (one SQLite connection per process).
      const run = await runKitCommand(['demo', 'create', '--password', 'demo-password-1', '--callback', 'https://merchant.example/cb'], env);
      expect(run.code).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const demo = JSON.parse(lines[0]);
      expect(demo).toMatchObject({ parentMerchantId: expect.stringMatching(/^PM/), subMerchantId: expect.stringMatching(/^SM/), password: 'demo-password-1' });
      const client = new KitClient({ baseUrl: kit.url, appId: demo.appId, appSecret: demo.appSecret });
      expect(await client.login(demo.subMerchantId, demo.password)).toMatchObject({ displayName: 'Demo Shop', parentMerchantId: demo.parentMerchantId });
      const order = await client.createPrepay({ subMerchantId: demo.subMerchantId, totalAmount: '9.90' });
      expect((await client.socialPayNative(order.prepayId)).args.code_url).toBeTruthy();
      expect(await kit.runtime.services.merchants.effectivePaymentParams(demo.subMerchantId, 'SocialNative')).toMatchObject({ notifyCallbackUrl: 'https://merchant.example/cb' });
    } finally {
      await kit.close();
    }
  });
});
