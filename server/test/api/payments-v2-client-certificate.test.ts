/**
 * Protocol v2's `/secapi/` calls present the merchant API certificate (mutual TLS): the platform's
 * gateway is played by an HTTPS listener in front of the sandbox that asks every connection for a
 * client certificate, checks it against the merchant CA, and refuses a `/secapi/` call without one
 * (`support/mutual-tls-gateway.ts`). A call without the certificate, or with one the CA never issued,
 * is refused; the kit, configured with the certificate (`PAY_V2_CLIENT_CERT`, `PAY_V2_CLIENT_KEY`),
 * refunds a paid order (`secapi/pay/refund`) and reverses a payment code that got no answer
 * (`secapi/pay/reverse`) through it, presenting that certificate each time; the other calls
 * (`pay/micropay`, the queries) need none. The service runs as a child process, as `npm run server`
 * starts it, so that it trusts the listener's CA the way Node is told to (`NODE_EXTRA_CA_CERTS`).
 */
import { KitClient } from '@kit/shared';
import type { SandboxTables } from '@kit/sandbox';
import { loadConfig } from '../../src/configuration';
import { createLogger } from '../../src/logger';
import { openServices } from '../../src/runtime';
import { describeEachBackend } from '../support/backends';
import { TEST_ENV, createMerchants } from '../support/kit';
import { startMutualTlsGateway, postThrough, type MutualTlsGateway } from '../support/mutual-tls-gateway';
import { SOCIAL_PARAMS, sandboxPost } from '../support/payments';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/process';
import { waitFor } from '../support/wait';

describeEachBackend(
  'protocol v2 over mutual TLS',
  (backend) => {
    let gateway: MutualTlsGateway;
    let service: ServiceProcess | undefined;
    let admin: Awaited<ReturnType<typeof openServices>> | undefined;

    afterAll(async () => {
      await admin?.db.close();
      await service?.stop();
      await gateway?.close();
    });

    test('a /secapi/ call without the certificate is refused; the kit presents it on refunds and reverses, and they pass', async () => {
      gateway = await startMutualTlsGateway('1900000109');
      const port = await freePort();
      gateway.target = `http://127.0.0.1:${port}`;

      // Without a certificate, or with one the merchant CA never issued, `/secapi/` is refused; the other paths are not.
      expect(await postThrough(gateway, '/sandbox/secapi/pay/refund', '<xml></xml>')).toMatchObject({ status: 403 });
      expect(await postThrough(gateway, '/sandbox/secapi/pay/reverse', '<xml></xml>', gateway.stranger)).toMatchObject({ status: 403 });
      expect(gateway.calls.map((c) => [c.url, c.authorized])).toEqual([
        ['/sandbox/secapi/pay/refund', false],
        ['/sandbox/secapi/pay/reverse', false],
      ]);

      const env: NodeJS.ProcessEnv = {
        ...TEST_ENV,
        ...backend.env(),
        PAY_GATEWAY_URL: `${gateway.url}/sandbox`,
        PAY_GATEWAY_TIMEOUT: '2s',
        PAY_V2_CLIENT_CERT: gateway.merchant.certFile,
        PAY_V2_CLIENT_KEY: gateway.merchant.keyFile,
        NODE_EXTRA_CA_CERTS: gateway.caFile,
      };
      service = await startServiceProcess(env, { port });
      admin = await openServices(loadConfig({ ...env, PORT: String(port) }), createLogger('silent'));
      const creds = await admin.services.apps.create('mtls');
      const client = new KitClient({ baseUrl: service.url, ...creds });
      const m = await createMerchants(client, creds.appId);
      await client.setPaymentParams(m.parentId, 'SocialNative', SOCIAL_PARAMS);
      const codeOf = async (behaviour: string) => (await sandboxPost(service!.url, '/payment-code', { wallet: 'social', behaviour })).body.code as string;
      const platform = admin.db.db.withTables<SandboxTables>();
      const atPlatform = (outTradeNo: string) =>
        platform.selectFrom('sandbox_orders').select('state').where('out_trade_no', '=', outTradeNo).executeTakeFirst();
      const codeOrder = async (prepayId: string) => (await admin!.services.payments.state(prepayId)).channelOrders.find((c) => c.trade_type === 'MICROPAY')!;

      // Paid by a payment code (micropay: no certificate needed), then refunded (secapi: presented).
      const paid = (await client.createPrepay({ subMerchantId: m.subId, totalAmount: '8.80' })).prepayId;
      expect((await client.codePay(paid, await codeOf('pay'))).args.result).toBe('paid');
      const token = (await client.login(m.subId, m.pw)).loginToken;
      expect(await client.refund(paid, token)).toEqual({ version: 1, status: 'success' });
      await waitFor(async () => (await client.prepayDetail(paid)).status === 'refunded', 'the refund to complete');

      // A code whose call gets no answer is reversed at once (secapi: presented).
      const lost = (await client.createPrepay({ subMerchantId: m.subId, totalAmount: '9.90' })).prepayId;
      await expect(client.codePay(lost, await codeOf('silent'))).rejects.toMatchObject({ error: 'channel_unavailable' });
      const reversed = await codeOrder(lost);
      expect(reversed.state).toBe('cancelled');
      expect((await atPlatform(reversed.out_trade_no))?.state).toBe('REVOKED');

      const kitCalls = gateway.calls.slice(2);
      const secapi = kitCalls.filter((c) => c.url.startsWith('/sandbox/secapi/'));
      expect(secapi.map((c) => c.url)).toEqual(['/sandbox/secapi/pay/refund', '/sandbox/secapi/pay/reverse']);
      for (const c of secapi) expect(c).toMatchObject({ authorized: true, fingerprint: gateway.merchant.fingerprint, status: 200 });
      // The other calls (the two codes' micropay, any query) went through without one.
      const others = kitCalls.filter((c) => !c.url.startsWith('/sandbox/secapi/'));
      expect(others.filter((c) => c.url === '/sandbox/pay/micropay')).toHaveLength(2);
      for (const c of others) expect(c).toMatchObject({ authorized: false, fingerprint: undefined });
    });
  },
  { protocols: ['v2'] },
);
