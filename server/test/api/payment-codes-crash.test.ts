/**
 * A payment code (7.4) interrupted by a crash converges with the platform by itself: the service
 * is killed (SIGKILL) while the platform holds the code's call (a `silent` code: the money is taken,
 * no answer comes), or while the payer is confirming; restarted on the same database, the code's
 * follow-up ends it the way the platform says: paid (recorded once, one callback), or cancelled at
 * the platform (the order stays payable). The service runs as a child process, as `npm run server` starts it.
 */
import { KitClient } from '@kit/shared';
import type { SandboxTables } from '@kit/sandbox';
import { loadConfig } from '../../src/configuration';
import { createLogger } from '../../src/logger';
import { openServices } from '../../src/runtime';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV, createMerchants } from '../support/kit';
import { SOCIAL_PARAMS, sandboxPost, startReceiver } from '../support/payments';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

describeEachBackend('a payment code interrupted by a crash', (backend) => {
  test('SIGKILL while the platform holds the call, and while the payer confirms: each ends as the platform says', async () => {
    const receiver = await startReceiver();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...TEST_ENV, ...backend.env(), PAY_GATEWAY_TIMEOUT: '2s', CODE_PAY_WAIT: '3s' };
    let service: ServiceProcess | undefined = await startServiceProcess(env, { port });
    const admin = await openServices(loadConfig({ ...env, PORT: String(port) }), createLogger('silent'));
    try {
      const creds = await admin.services.apps.create('code-crash');
      const client = new KitClient({ baseUrl: service.url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, notifyCallbackUrl: `${receiver.url}/cb` });
      const platform = admin.db.db.withTables<SandboxTables>();
      const atPlatform = (code: string) => platform.selectFrom('sandbox_orders').select('state').where('code_token', '=', code).executeTakeFirst();
      const codeOf = async (behaviour: string) => (await sandboxPost(service!.url, '/payment-code', { wallet: 'social', behaviour })).body.code as string;
      const codeOrder = async (prepayId: string) => (await admin.services.payments.state(prepayId)).channelOrders.find((c) => c.trade_type === 'MICROPAY');

      // 1. The platform took the money and the service died waiting for its answer.
      const paid = (await client.createPrepay({ subMerchantId: m.subId, totalAmount: '6.60' })).prepayId;
      const silent = await codeOf('silent');
      const held = client.codePay(paid, silent).catch((e: unknown) => e);
      await waitFor(async () => (await atPlatform(silent))?.state === 'SUCCESS', 'the platform to take the money');
      // 2. Another order's payer is confirming on the phone.
      const confirming = (await client.createPrepay({ subMerchantId: m.subId, totalAmount: '7.70' })).prepayId;
      const never = await codeOf('never');
      expect((await client.codePay(confirming, never)).args.result).toBe('waiting');
      await service.kill();
      expect(await held).toBeInstanceOf(Error);

      service = await startServiceProcess(env, { port });
      // The first ends as the platform says, by one of two correct paths: the next life's query finds it paid
      // (recorded once, with one callback); or that query gets no answer within PAY_GATEWAY_TIMEOUT (a busy
      // machine), the outcome is unknown, and the code is reversed: the money goes back and the order stays
      // payable. Either way the kit and the platform agree, and no payer is charged for an unpaid order.
      const ended = await waitFor(async () => {
        const co = await codeOrder(paid);
        const platformSays = (await atPlatform(silent))?.state;
        if (co?.state === 'paid' && platformSays === 'SUCCESS') return 'paid';
        if (co?.state === 'cancelled' && platformSays === 'REVOKED') return 'reversed';
        return undefined;
      }, 'the held code ended as the platform says');
      if (ended === 'paid') {
        expect(await codeOrder(paid)).toMatchObject({ paid_via: 'query' });
        expect((await client.prepayDetail(paid)).status).toBe('finish');
        await waitFor(() => receiver.received.some((r) => JSON.parse(r.body).prepayId === paid), 'its callback');
      } else {
        expect((await client.prepayDetail(paid)).status).toBe('active');
      }
      // The second is cancelled at the platform once CODE_PAY_WAIT has passed; its order stays payable.
      await waitFor(async () => (await atPlatform(never))?.state === 'REVOKED', 'the unconfirmed code cancelled at the platform');
      await waitFor(async () => (await codeOrder(confirming))?.state === 'cancelled', 'the unconfirmed code cancelled in the kit');
      expect((await client.prepayDetail(confirming)).status).toBe('active');
      expect((await client.codePay(confirming, await codeOf('pay'))).args.result).toBe('paid');
      expect(receiver.received.filter((r) => JSON.parse(r.body).prepayId === paid)).toHaveLength(ended === 'paid' ? 1 : 0);
    } finally {
      await admin.db.close();
      await service?.stop();
      await receiver.close();
    }
  });
});
