/**
 * A refund interrupted by a crash converges by itself (docs/payments.md): the service is killed (SIGKILL)
 * while its refund call to the channel is held by the sandbox (fault `refunds: hold`), restarted on
 * the same database, and the order ends `refunded` with exactly one `refunded` callback, without
 * any client retry. The service runs as a child process, as `npm run server` starts it.
 */
import { KitClient } from '@kit/shared';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { openServices } from '../../src/runtime';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV, createMerchants } from '../support/kit';
import { SOCIAL_PARAMS, sandboxPost, startReceiver } from '../support/payments';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

describeEachBackend('a refund interrupted by a crash', (backend) => {
  jest.setTimeout(90_000);

  test('SIGKILL while the refund call is held: after a restart the order is refunded, with one callback', async () => {
    const receiver = await startReceiver();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...TEST_ENV,
      ...backend.env(),
      PAY_GATEWAY_TIMEOUT: '3s',
      PAYMENT_QUERY_SCHEDULE: '300ms,500ms,1s',
      SANDBOX_REFUND_DELAY: '200ms',
    };
    let service: ServiceProcess | undefined = await startServiceProcess(env, { port });
    try {
      const admin = await openServices(loadConfig({ ...env, PORT: String(port) }), createLogger('silent'));
      const creds = await admin.services.apps.create('crash-test');
      await admin.db.close();
      const client = new KitClient({ baseUrl: service.url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, notifyCallbackUrl: `${receiver.url}/cb` });
      const { prepayId } = await client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.55' });
      const { args } = await client.socialPayNative(prepayId);
      expect((await sandboxPost(service.url, '/pay', { codeUrl: args.code_url })).status).toBe(200);
      expect((await client.waitForPayment(prepayId)).status).toBe('finish');
      const token = (await client.login(m.subId, m.pw)).loginToken;

      expect((await sandboxPost(service.url, '/faults', { refunds: 'hold' })).status).toBe(200);
      const held = client.refund(prepayId, token).catch((e: unknown) => e);
      // The refund is written and its call is on the way (held by the sandbox): kill the service now.
      await new Promise((r) => setTimeout(r, 700));
      await service.kill();
      expect(await held).toBeInstanceOf(Error);
      service = await startServiceProcess(env, { port });

      // No retry by anyone: the follow-up job resumes the refund (the faults died with the process).
      await waitFor(async () => (await client.prepayDetail(prepayId)).status === 'refunded', 'the order to be refunded');
      const statuses = () =>
        receiver.received
          .map((r) => JSON.parse(r.body))
          .filter((b) => b.prepayId === prepayId)
          .map((b) => b.status);
      await waitFor(() => statuses().length === 2, 'the refunded callback');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(statuses()).toEqual(['finish', 'refunded']);
    } finally {
      await service?.stop();
      await receiver.close();
    }
  });
});
