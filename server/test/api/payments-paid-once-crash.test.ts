/**
 * A second payment's automatic refund survives a crash (docs/payments.md "Paid once"): the order is
 * paid through Alipay while its social code was paid too (that notification lost), the close finds
 * the social payment and its refund is sent, but the sandbox holds that call (fault `refunds: hold`)
 * and the service is killed (SIGKILL). Restarted on the same database, the job sends the same
 * refund again under the same refund number: one refund at the platform, the order paid once with
 * one `finish` callback. The service runs as a child process, as `npm run server` starts it.
 */
import { KitClient } from '@kit/shared';
import { loadConfig } from '../../src/configuration';
import { createLogger } from '../../src/logger';
import { openServices } from '../../src/runtime';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV, createMerchants, sandboxTables } from '../support/kit';
import { SOCIAL_PARAMS, sandboxPost, startReceiver } from '../support/payments';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

describeEachBackend('a second payment refunded across a crash', (backend) => {
  jest.setTimeout(120_000);

  test('SIGKILL while the second payment’s refund is held: after a restart it is refunded once, the order paid once', async () => {
    const receiver = await startReceiver();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...TEST_ENV,
      ...backend.env(),
      PAY_GATEWAY_TIMEOUT: '2s',
      // No scheduled order query before the test's own steps.
      PAYMENT_QUERY_SCHEDULE: '30s,500ms,1s',
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
      const creds = await inspect((o) => o.services.apps.create('paid-once-crash'));
      const client = new KitClient({ baseUrl: service.url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await client.setPaymentParams(m.parentId, 'SocialNative', { ...SOCIAL_PARAMS, notifyCallbackUrl: `${receiver.url}/cb` });
      await client.setPaymentParams(m.parentId, 'Alipay', { appAuthToken: 'appAuthToken_crash_0001', notifyCallbackUrl: `${receiver.url}/cb` });
      const { prepayId } = await client.createPrepay({ subMerchantId: m.subId, totalAmount: '6.66' });
      const alipay = await client.alipayNative(prepayId);
      const social = await client.socialPayNative(prepayId);

      // The social payment's notification is lost, and every refund call is held.
      expect((await sandboxPost(service.url, '/faults', { payNotifications: 'drop', refunds: 'hold' })).status).toBe(200);
      expect((await sandboxPost(service.url, '/pay', { codeUrl: social.args.code_url })).status).toBe(200);
      expect((await sandboxPost(service.url, '/faults', { refunds: 'hold' })).status).toBe(200);
      expect((await sandboxPost(service.url, '/alipay/pay', { qrCode: alipay.args.qr_code })).status).toBe(200);
      expect((await client.waitForPayment(prepayId)).status).toBe('finish');

      // The close found the social payment: recorded as a second payment, its refund sent (and held) by its job,
      // which holds the claim while it waits for the answer: kill the service now.
      const dup = await waitFor(() => inspect(async (o) => (await o.services.payments.state(prepayId)).duplicates[0]), 'the second payment recorded');
      expect(dup).toMatchObject({ channel: 'SocialNative', state: 'requesting', refund_cents: 666 });
      const sending = (o: Awaited<ReturnType<typeof openServices>>) =>
        o.db.db
          .selectFrom('jobs')
          .select('id')
          .where('queue', '=', 'payment.duplicate')
          .where('key', '=', dup.out_trade_no)
          .where('state', '=', 'pending')
          .where('lease_token', 'is not', null)
          .executeTakeFirst();
      await waitFor(() => inspect(sending), 'the refund of the second payment under way');
      // The order's finish callback recorded delivered first: a callback under way when the process dies is
      // delivered again by the next life (at least once), which is not what this test is about.
      await waitFor(
        () => inspect(async (o) => (await o.services.callbacks.history(prepayId)).some((c) => c.status === 'finish' && c.state === 'delivered')),
        'the finish callback recorded',
      );
      await service.kill();
      service = await startServiceProcess(env, { port });

      // Nobody asks again: the job sends the same refund once its lease ends (the faults died with the process).
      await waitFor(() => inspect(async (o) => (await o.services.payments.state(prepayId)).duplicates[0]?.state === 'success'), 'the second payment refunded');
      const atPlatform = await inspect((o) =>
        sandboxTables({ runtime: { db: o.db } })
          .selectFrom('sandbox_refunds')
          .select(['out_refund_no', 'refund_fee'])
          .where('out_refund_no', 'like', 'D%')
          .execute(),
      );
      expect(atPlatform).toEqual([{ out_refund_no: dup.out_refund_no, refund_fee: 666 }]);
      expect((await client.prepayDetail(prepayId)).status).toBe('finish');
      const statuses = () =>
        receiver.received
          .map((r) => JSON.parse(r.body))
          .filter((b) => b.prepayId === prepayId)
          .map((b) => b.status);
      await waitFor(() => statuses().length === 1, 'the finish callback');
      // Nothing more to come: no job of the service or its sandbox is left pending (the refund's notification
      // and its duplicate, a follow-up), and the order's callbacks are the one, delivered.
      await waitFor(
        () => inspect(async (o) => !(await o.db.db.selectFrom('jobs').select('id').where('state', '=', 'pending').executeTakeFirst())),
        'no job left pending',
      );
      const history = await inspect((o) => o.services.callbacks.history(prepayId));
      expect(history.map((c) => [c.status, c.state])).toEqual([['finish', 'delivered']]);
      expect(statuses()).toEqual(['finish']);
    } finally {
      await service?.stop();
      await receiver.close();
    }
  });
});
