/**
 * Profit-sharing results never get lost (4.8): the service is killed (SIGKILL) after a split was
 * accepted and before its receivers' results arrived; after a restart on the same database the
 * results still end up in the query, without anyone asking again.
 */
import { KitClient } from '@kit/shared';
import { loadConfig } from '../../src/configuration';
import { createLogger } from '../../src/logger';
import { openServices } from '../../src/runtime';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV, createMerchants } from '../support/kit';
import { SOCIAL_PARAMS, sandboxPost } from '../support/payments';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

describeEachBackend('profit sharing across a crash', (backend) => {
  jest.setTimeout(90_000);

  test('SIGKILL after a split was accepted, before its results: after a restart the results arrive', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...TEST_ENV, ...backend.env(), SANDBOX_PROFIT_SHARING_DELAY: '3s', PROFIT_SHARING_QUERY_SCHEDULE: '300ms' };
    let service: ServiceProcess | undefined = await startServiceProcess(env, { port });
    try {
      const admin = await openServices(loadConfig({ ...env, PORT: String(port) }), createLogger('silent'));
      const creds = await admin.services.apps.create('ps-crash');
      const client = new KitClient({ baseUrl: service.url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await admin.services.merchants.setContracted(m.parentId, true);
      await admin.db.close();
      await client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, profitSharing: true });
      await client.addProfitSharingReceiver({
        merchantId: m.parentId,
        type: 'MERCHANT_ID',
        account: '1900000777',
        name: 'Crash Partner',
        relationType: 'PARTNER',
      });
      const { prepayId } = await client.createPrepay({ subMerchantId: m.subId, totalAmount: '20.00' });
      const { args } = await client.socialPayNative(prepayId);
      await sandboxPost(service.url, '/pay', { codeUrl: args.code_url });
      expect((await client.waitForPayment(prepayId)).status).toBe('finish');

      const outOrderNo = `crash${Date.now()}`;
      const accepted = await client.shareProfit({
        prepayId,
        outOrderNo,
        receivers: [{ type: 'MERCHANT_ID', account: '1900000777', amount: '6.00', description: 'share' }],
      });
      expect(accepted.data.state).toBe('processing');
      expect((await client.profitSharingOrder(prepayId, outOrderNo)).data.receivers[0].result).toBe('pending');
      await service.kill();
      service = await startServiceProcess(env, { port });

      const done = await waitFor(async () => {
        const d = await client.profitSharingOrder(prepayId, outOrderNo);
        return d.data.state === 'finished' ? d : undefined;
      }, 'the results after the restart');
      expect(done.data.receivers[0]).toMatchObject({ result: 'success', amount: '6.00', finishTime: expect.any(String) });
      expect((await client.profitSharingAmounts(prepayId)).data.sharedAmount).toBe('6.00');
    } finally {
      await service?.stop();
    }
  });
});
