/**
 * A close the platform refuses with a code the kit does not know is checked against the order query,
 * which is authoritative, on both protocols: a paid order is settled through the query, an order the
 * query says is closed is closed, and an order still payable keeps the refusal (`channel_error`).
 * A platform in front of the sandbox, played by this test, answers every close with `INVALID_REQUEST`
 * (the published v3 documentation does not pin the code for closing a paid order), signed as the
 * platform signs (v3: the platform key; v2: the merchant key); every other call goes through unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from 'node:crypto';
import { parseXml, toXml } from '../../src/payments/providers/protocol-v2/xml';
import { isSignType, signFields } from '../../src/payments/providers/protocol-v2/sign';
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payFixture, sandboxPost, type PayFixture } from '../support/payments';
import { devV3Material } from '@kit/sandbox';

/** `forward`: the close reaches the sandbox (which closes or refuses it), then is answered refused; `refuse`: it never reaches it. */
type CloseMode = 'pass' | 'forward' | 'refuse';

describeEachBackend(
  'a close refused with a code the kit does not know',
  (backend) => {
    jest.setTimeout(60_000);
    let kit: TestKit;
    let f: PayFixture;
    let platform: http.Server;
    let mode: CloseMode = 'pass';
    let refusedCloses = 0;

    beforeAll(async () => {
      const env = backend.env();
      const dev = devV3Material(env.DATA_DIR!);
      let sandboxUrl = '';
      let v2Key = '';
      const isClose = (url: string) => url === '/pay/closeorder' || /^\/v3\/pay\/partner\/transactions\/out-trade-no\/[^/]+\/close$/.test(url);
      /** The refusal as the platform would send it, signed. */
      const refusal = (url: string, request: Buffer, serial: string): { status: number; headers: Record<string, string>; body: string } => {
        if (url.startsWith('/v3/')) {
          const body = JSON.stringify({ code: 'INVALID_REQUEST', message: '订单状态不允许关闭' });
          const timestamp = String(Math.floor(Date.now() / 1000));
          const nonce = 'n' + Date.now().toString(36);
          const signature = sign('sha256', Buffer.from(`${timestamp}\n${nonce}\n${body}\n`), dev.platform.privateKey).toString('base64');
          return {
            status: 400,
            headers: {
              'content-type': 'application/json',
              'request-id': `close-refused-${Date.now()}`,
              'wechatpay-timestamp': timestamp,
              'wechatpay-nonce': nonce,
              'wechatpay-signature': signature,
              'wechatpay-serial': serial,
            },
            body,
          };
        }
        const req = parseXml(request);
        const signType = isSignType(req.sign_type) ? req.sign_type : 'MD5';
        const fields: Record<string, string> = {
          return_code: 'SUCCESS',
          return_msg: 'OK',
          appid: req.appid,
          mch_id: req.mch_id,
          sub_mch_id: req.sub_mch_id,
          nonce_str: 'n' + Date.now().toString(36),
          result_code: 'FAIL',
          err_code: 'INVALID_REQUEST',
          err_code_des: '订单状态不允许关闭',
        };
        fields.sign = signFields(fields, v2Key, signType);
        return { status: 200, headers: { 'content-type': 'text/xml; charset=utf-8' }, body: toXml(fields) };
      };
      platform = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          void (async () => {
            const url = req.url ?? '';
            const body = Buffer.concat(chunks);
            const closing = mode !== 'pass' && isClose(url.split('?')[0]);
            let serial = '';
            if (!closing || mode === 'forward') {
              const headers: Record<string, string> = {};
              for (const h of ['authorization', 'content-type', 'accept', 'wechatpay-serial']) if (req.headers[h]) headers[h] = String(req.headers[h]);
              const answer = await fetch(`${sandboxUrl}${url}`, { method: req.method, headers, body: body.length ? body : undefined });
              serial = answer.headers.get('wechatpay-serial') ?? '';
              if (!closing) {
                const out: Record<string, string> = {};
                answer.headers.forEach((v, k) => {
                  if (k === 'content-type' || k === 'request-id' || k.startsWith('wechatpay-')) out[k] = v;
                });
                res.writeHead(answer.status, out);
                return res.end(Buffer.from(await answer.arrayBuffer()));
              }
            }
            refusedCloses++;
            const r = refusal(url, body, serial || dev.settings.PAY_PLATFORM_PUBLIC_KEY_ID);
            res.writeHead(r.status, r.headers);
            res.end(r.body);
          })().catch((err: Error) => {
            res.writeHead(502);
            res.end(err.message);
          });
        });
      });
      await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
      // Its gateway is this interceptor, not its own sandbox: it is given the sandbox's development keys as settings.
      kit = await startTestKit(backend, {
        ...env,
        ...dev.settings,
        SANDBOX_NOTIFY_SCHEDULE: '100ms,200ms,300ms',
        PAY_GATEWAY_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}`,
      });
      sandboxUrl = `${kit.url}/sandbox`;
      v2Key = kit.runtime.config.PAY_SP_KEY ?? '';
      f = await payFixture(kit);
    });
    afterEach(async () => {
      mode = 'pass';
      await sandboxPost(kit.url, '/faults', {});
    });
    afterAll(async () => {
      await kit?.close();
      await new Promise((r) => platform?.close(r));
    });

    const switchFlows = (prepayId: string) => f.client.call<any>('POST', '/submerchant-pay/socialPayApp', { body: { prepayId } });

    test('a paid order (its notification lost): the refused close leads to the order query, which records the payment', async () => {
      const prepayId = await newOrder(f, '3.30');
      const native = await f.client.socialPayNative(prepayId);
      expect((await sandboxPost(kit.url, '/faults', { payNotifications: 'drop' })).status).toBe(200);
      expect((await sandboxPost(kit.url, '/pay', { codeUrl: native.args.code_url })).status).toBe(200);
      mode = 'forward';
      const before = refusedCloses;
      const app = await switchFlows(prepayId);
      expect(refusedCloses).toBe(before + 1);
      expect(app).toMatchObject({ httpStatus: 409, body: { status: 'fail', error: 'order_not_active', msg: expect.stringContaining('paid') } });
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      const rows = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
      expect(rows.map((r) => [r.trade_type, r.state, r.paid_via])).toEqual([['NATIVE', 'paid', 'query']]);
      expect((await kit.runtime.services.callbacks.history(prepayId)).map((c) => c.status)).toEqual(['finish']);
    });

    test('an order the platform did close although it answered with a refusal: the query says CLOSED, so it is closed and replaced', async () => {
      const prepayId = await newOrder(f, '3.40');
      await f.client.socialPayNative(prepayId);
      mode = 'forward';
      const app = await switchFlows(prepayId);
      expect(app.httpStatus).toBe(200);
      const rows = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
      expect(rows.map((r) => [r.trade_type, r.state]).sort()).toEqual([
        ['APP', 'open'],
        ['NATIVE', 'closed'],
      ]);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    });

    test('an order still payable (NOTPAY): the refusal stands as channel_error and the order stays payable where it was', async () => {
      const prepayId = await newOrder(f, '3.50');
      const native = await f.client.socialPayNative(prepayId);
      mode = 'refuse';
      const app = await switchFlows(prepayId);
      expect(app).toMatchObject({ httpStatus: 502, body: { status: 'fail', error: 'channel_error', msg: expect.stringContaining('INVALID_REQUEST') } });
      const rows = (await kit.runtime.services.payments.state(prepayId)).channelOrders;
      expect(rows.map((r) => [r.trade_type, r.state])).toEqual([['NATIVE', 'open']]);
      // Nothing was taken for a payment or a close: the order is paid normally afterwards.
      mode = 'pass';
      expect((await sandboxPost(kit.url, '/pay', { codeUrl: native.args.code_url })).status).toBe(200);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
