/**
 * API v3 against the platform as it really behaves, through real HTTP: a stand-in platform in front
 * of the sandbox answers some calls itself the way the real one does and the sandbox does not.
 * Error answers (signed or not) are read for the platform's code; SYSTEM_ERROR, FREQUENCY_LIMITED
 * (429) and 5xx answer 503 `channel_unavailable` with `Retry-After`, and the next try is the same
 * order (`out_trade_no`) or the same refund (`out_refund_no`). A main gateway that accepts
 * connections and never answers is failed over to PAY_GATEWAY_BACKUP_URL.
 */
import { describeEachBackend, type Backend } from '../support/backends';
import { sandboxTables, startTestKit, type TestKit } from '../support/kit';
import { newOrder, payApi, payByCode, payFixture, recordingClient, type PayFixture } from '../support/payments';
import { startPlatformProxy, startSilentGateway, type PlatformProxy } from '../support/platform-proxy';
import { waitFor } from '../support/wait';
import { devV3Material } from '@kit/sandbox';

/** A kit configured like a real merchant account (the development material's settings), its gateway given. */
async function kitBehind(backend: Backend, env: NodeJS.ProcessEnv): Promise<TestKit> {
  const base = backend.env();
  return startTestKit(backend, { SANDBOX_NOTIFY_SCHEDULE: '100ms,200ms,300ms', ...base, ...devV3Material(base.DATA_DIR!).settings, ...env });
}

describeEachBackend(
  'API v3 error answers',
  (backend) => {
    let kit: TestKit;
    let proxy: PlatformProxy;
    let f: PayFixture;
    let token: string;
    let platform: { key: import('node:crypto').KeyObject; serial: string };

    beforeAll(async () => {
      proxy = await startPlatformProxy();
      kit = await kitBehind(backend, { PAY_GATEWAY_URL: proxy.url, PAY_GATEWAY_TIMEOUT: '2s', SANDBOX_REFUND_DELAY: '200ms' });
      proxy.target = `${kit.url}/sandbox`;
      const dev = devV3Material(kit.runtime.config.DATA_DIR);
      platform = { key: dev.platform.privateKey, serial: dev.platform.publicKeyId };
      f = await payFixture(kit);
      token = (await f.client.login(f.subId, f.pw)).loginToken;
    });
    afterEach(() => {
      proxy.intercept = () => undefined;
    });
    afterAll(async () => {
      await kit.close();
      await proxy.close();
    });

    const placing = (c: { method: string; url: string }) => c.method === 'POST' && c.url === '/v3/pay/partner/transactions/native';
    const channelOrders = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders;

    test("a signed 429 FREQUENCY_LIMITED on placing an order: 503 with Retry-After and the platform's code, and the next try places the same out_trade_no", async () => {
      const { client, retryAfter } = recordingClient(kit, f);
      let n = 0;
      proxy.intercept = (c) =>
        placing(c) && n++ === 0
          ? { status: 429, body: { code: 'FREQUENCY_LIMITED', message: '频率超限' }, signedBy: platform, headers: { 'retry-after': '2' } }
          : undefined;
      const prepayId = await newOrder(f, '6.10');
      const first = await payApi.native(client, prepayId);
      expect(first.httpStatus).toBe(503);
      expect(first.body).toMatchObject({ status: 'fail', error: 'channel_unavailable', msg: expect.stringMatching(/HTTP 429 FREQUENCY_LIMITED 频率超限/) });
      expect(retryAfter()).toBe('2');
      const [held] = await channelOrders(prepayId);
      expect(held.state).toBe('creating');

      const second = await client.socialPayNative(prepayId);
      expect(second.args.code_url).toMatch(/^weixin:\/\//);
      expect((await channelOrders(prepayId)).map((co) => [co.out_trade_no, co.state])).toEqual([[held.out_trade_no, 'open']]);
      const atPlatform = await sandboxTables(kit).selectFrom('sandbox_orders').select('out_trade_no').where('out_trade_no', '=', held.out_trade_no).execute();
      expect(atPlatform).toHaveLength(1);
      await payByCode(kit, f, prepayId);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    });

    test("an unsigned 400 on placing an order is the platform's refusal, its code in the answer, not a bad signature", async () => {
      const { client, retryAfter } = recordingClient(kit, f);
      proxy.intercept = (c) => (placing(c) ? { status: 400, body: { code: 'PARAM_ERROR', message: 'time_expire 格式错误' } } : undefined);
      const prepayId = await newOrder(f, '6.20');
      const answer = await payApi.native(client, prepayId);
      expect(answer.httpStatus).toBe(502);
      expect(answer.body).toMatchObject({ error: 'channel_error', msg: expect.stringMatching(/PARAM_ERROR time_expire 格式错误/) });
      expect(retryAfter()).toBeNull();
      expect(answer.body.args).toBeUndefined();
      expect((await channelOrders(prepayId)).map((co) => co.state)).toEqual(['failed']);
    });

    test('an unsigned 500 SYSTEM_ERROR on a refund: 503 with Retry-After, the refund stays requested under its number and completes with it', async () => {
      const prepayId = await newOrder(f, '6.30');
      await payByCode(kit, f, prepayId);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      const { client, retryAfter } = recordingClient(kit, f);
      let n = 0;
      proxy.intercept = (c) =>
        c.method === 'POST' && c.url === '/v3/refund/domestic/refunds' && n++ === 0
          ? { status: 500, body: { code: 'SYSTEM_ERROR', message: '系统繁忙，请稍后重试' } }
          : undefined;
      const answer = await payApi.refund(client, prepayId, token);
      expect(answer.httpStatus).toBe(503);
      expect(answer.body).toMatchObject({ error: 'channel_unavailable', msg: expect.stringMatching(/HTTP 500 SYSTEM_ERROR 系统繁忙.*same refund number/) });
      // The later of the platform's wait (5 s when it names none) and the moment a new request may
      // take the refund over (PAY_GATEWAY_TIMEOUT, 2 s here, and a second).
      expect(retryAfter()).toBe('5');
      const requested = (await kit.runtime.services.payments.state(prepayId)).refund!;
      expect(requested.state).toBe('requesting');

      // The follow-up job sends it again under the same refund number; the platform completes it.
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');
      const atPlatform = await sandboxTables(kit)
        .selectFrom('sandbox_refunds')
        .select('out_refund_no')
        .where('out_refund_no', '=', requested.out_refund_no)
        .execute();
      expect(atPlatform).toHaveLength(1);
      expect((await kit.runtime.services.payments.state(prepayId)).refund).toMatchObject({ state: 'success', out_refund_no: requested.out_refund_no });
      expect((await kit.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish', 'refunded']);
    });
  },
  { protocols: ['v3'] },
);

describeEachBackend(
  'API v3 with a main gateway that accepts and never answers',
  (backend) => {
    test('placing, querying and refunding go to PAY_GATEWAY_BACKUP_URL after the main domain’s share of PAY_GATEWAY_TIMEOUT', async () => {
      const silent = await startSilentGateway();
      const backup = await startPlatformProxy();
      const kit = await kitBehind(backend, {
        PAY_GATEWAY_URL: silent.url,
        PAY_GATEWAY_BACKUP_URL: backup.url,
        PAY_GATEWAY_TIMEOUT: '2s',
        PAYMENT_QUERY_SCHEDULE: '300ms,300ms,500ms,1s',
        SANDBOX_REFUND_DELAY: '200ms',
      });
      backup.target = `${kit.url}/sandbox`;
      try {
        const f = await payFixture(kit);
        const token = (await f.client.login(f.subId, f.pw)).loginToken;
        const prepayId = await newOrder(f, '7.10');
        expect((await f.client.socialPayNative(prepayId)).args.code_url).toMatch(/^weixin:\/\//);
        // Its notification lost: the order query (a GET) finds the payment, through the backup.
        await fetch(`${kit.url}/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"payNotifications":"drop"}' });
        await payByCode(kit, f, prepayId);
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
        expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].paid_via).toBe('query');
        expect(await f.client.refund(prepayId, token)).toEqual({ version: 1, status: 'success' });
        await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'refunded', 'refunded');

        // Each call went to the main gateway first, and was answered by the backup.
        expect(silent.connections()).toBeGreaterThanOrEqual(3);
        const paths = backup.calls.map((c) => `${c.method} ${c.url.split('?')[0]}`);
        expect(paths).toEqual(
          expect.arrayContaining([
            'POST /v3/pay/partner/transactions/native',
            'POST /v3/refund/domestic/refunds',
            expect.stringMatching(/^GET \/v3\/pay\/partner\/transactions\/out-trade-no\//),
          ]),
        );
      } finally {
        await kit.close();
        await backup.close();
        await silent.close();
      }
    });
  },
  { protocols: ['v3'] },
);
