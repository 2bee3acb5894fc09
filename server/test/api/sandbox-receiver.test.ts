/** The development receiver (`/sandbox/receiver`): the demo shop's callbacks arrive there, verified and kept, and answered `OK`. */
import { KitClient, signCallbackUrl } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit } from '../support/kit';
import { runKitCommand } from '../support/process';
import { payByCode } from '../support/payments';
import { waitFor } from '../support/wait';

describeEachBackend('the development receiver', (backend) => {
  it('demo create points the demo shop at it; a payment’s callback arrives signed, is kept and delivered', async () => {
    const env = backend.env();
    const kit = await startTestKit(backend, env);
    try {
      const port = new URL(kit.url).port;
      const run = await runKitCommand(['demo', 'create', '--password', 'demo-password-1'], { ...env, PORT: port });
      expect(run.code).toBe(0);
      const demo = JSON.parse(run.stdout.trim());
      expect(await kit.runtime.services.merchants.effectivePaymentParams(demo.subMerchantId, 'SocialNative')).toMatchObject({
        notifyCallbackUrl: `http://127.0.0.1:${port}/sandbox/receiver`,
      });

      const client = new KitClient({ baseUrl: kit.url, appId: demo.appId, appSecret: demo.appSecret });
      const { prepayId } = await client.createPrepay({ subMerchantId: demo.subMerchantId, totalAmount: '9.90' });
      await payByCode(kit, { client } as never, prepayId);
      const list = async () => ((await (await fetch(`${kit.url}/sandbox/receiver`)).json()) as { received: Array<Record<string, string>> }).received;
      const got = await waitFor(async () => (await list()).find((c) => c.prepayId === prepayId), 'the callback at the receiver');
      expect(got).toMatchObject({ status: 'finish', subMerchantId: demo.subMerchantId, merchantId: demo.parentMerchantId, signature: 'ok' });
      expect(got.url).toMatch(/^\/sandbox\/receiver\?_appid=/);
      await waitFor(async () => (await client.callbacks({ prepayId })).data.items[0]?.state === 'delivered', 'delivered');
      expect((await client.callbacks({ prepayId })).data.items[0].attempts[0]).toMatchObject({ httpStatus: 200, answer: 'OK' });
    } finally {
      await kit.close();
    }
  });

  it('answers OK to anything but says when a signature does not verify', async () => {
    const kit = await startTestKit(backend);
    try {
      const app = await kit.newApp();
      const body = JSON.stringify({ notifyTime: new Date().toISOString(), prepayId: 'forged1', status: 'finish', subMerchantId: 'SMx', merchantId: 'PMx' });
      const url = signCallbackUrl(`${kit.url}/sandbox/receiver`, body, { appId: app.appId, appSecret: 'not-the-secret' });
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect([res.status, await res.text()]).toEqual([200, 'OK']);
      const { received } = (await (await fetch(`${kit.url}/sandbox/receiver`)).json()) as { received: Array<Record<string, string>> };
      expect(received[0]).toMatchObject({ prepayId: 'forged1', signature: expect.stringMatching(/^signature_mismatch/) });
      expect((await fetch(`${kit.url}/sandbox/receiver`, { method: 'PUT' })).status).toBe(405);
    } finally {
      await kit.close();
    }
  });
});
