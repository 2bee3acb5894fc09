/**
 * A refund interrupted by a crash converges by itself (docs/payments.md): the service is killed (SIGKILL)
 * while its refund call to the channel is held by the sandbox (fault `refunds: hold`), restarted on
 * the same database, and the order ends `refunded` with exactly one `refunded` callback, without
 * any client retry. The service runs as a child process, as `npm run server` starts it.
 */
import { KitClient } from '@kit/shared';
import { loadConfig } from '../../src/configuration';
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
    const config = loadConfig({ ...env, PORT: String(port) });
    /** Reads the service's database from outside the process (as an operator's `kit` command does). */
    const inspect = async <T>(fn: (o: Awaited<ReturnType<typeof openServices>>) => Promise<T>): Promise<T> => {
      const o = await openServices(config, createLogger('silent'));
      try {
        return await fn(o);
      } finally {
        await o.db.close();
      }
    };
    let service: ServiceProcess | undefined = await startServiceProcess(env, { port });
    try {
      const creds = await inspect((o) => o.services.apps.create('crash-test'));
      const client = new KitClient({ baseUrl: service.url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, notifyCallbackUrl: `${receiver.url}/cb` });
      const { prepayId } = await client.createPrepay({ subMerchantId: m.subId, totalAmount: '5.55' });
      const { args } = await client.socialPayNative(prepayId);
      expect((await sandboxPost(service.url, '/pay', { codeUrl: args.code_url })).status).toBe(200);
      expect((await client.waitForPayment(prepayId)).status).toBe('finish');
      const token = (await client.login(m.subId, m.pw)).loginToken;

      expect((await sandboxPost(service.url, '/faults', { refunds: 'hold' })).status).toBe(200);
      let answered = false;
      const held = client.refund(prepayId, token).catch((e: unknown) => e);
      void held.then(() => (answered = true));
      // The refund is written and its call is on the way (held by the sandbox), unanswered: kill the service now.
      await waitFor(() => inspect(async (o) => (await o.services.payments.state(prepayId)).refund?.state === 'requesting'), 'the refund written');
      expect(answered).toBe(false);
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
      // Nothing more to come: no job of the service or its sandbox is left pending (a late notification of the
      // refund, its duplicate, the follow-up), and the order's callbacks are the two, both delivered.
      await waitFor(
        () => inspect(async (o) => !(await o.db.db.selectFrom('jobs').select('id').where('state', '=', 'pending').executeTakeFirst())),
        'no job left pending',
      );
      const history = await inspect((o) => o.services.callbacks.history(prepayId));
      expect(history.map((c) => [c.status, c.state])).toEqual([
        ['finish', 'delivered'],
        ['refunded', 'delivered'],
      ]);
      expect(statuses()).toEqual(['finish', 'refunded']);
    } finally {
      await service?.stop();
      await receiver.close();
    }
  });
});
