/** 4.3–4.5 through real HTTP against the sandbox: scan-code, mini-program and app payment, on every backend. */
import { signFields } from '../../src/payments/providers/protocol-v2/sign';
import { BOTH_PROTOCOLS, describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit, sandboxTables } from '../support/kit';
import { SOCIAL_PARAMS, newOrder, payApi, payFixture, payerSignatureValid, sandboxOpenId, sandboxPost, type PayFixture } from '../support/payments';
import { waitFor } from '../support/wait';

const ENV = { SANDBOX_REFUND_DELAY: '100ms', SANDBOX_NOTIFY_SCHEDULE: '100ms,200ms,300ms' };
const NATIVE_ARG_KEYS = ['appid', 'code_url', 'mch_id', 'nonce_str', 'prepay_id', 'result_code', 'return_code', 'return_msg', 'sign', 'trade_type'].sort();

describeEachBackend(
  'payment arguments and payment through the sandbox',
  (backend) => {
    let kit: TestKit;
    let f: PayFixture;
    let mp: { appid: string; secret: string };

    beforeAll(async () => {
      kit = await startTestKit(backend, { ...ENV, WAIT_FOR_FINISH_HOLD: '20s' });
      f = await payFixture(kit);
      mp = { appid: kit.runtime.config.MP_APPID!, secret: kit.runtime.config.MP_SECRET! };
    });
    afterAll(() => kit.close());

    test('4.3 scan-code: args with code_url; paying the code finishes the order with paymentTime', async () => {
      const prepayId = await newOrder(f, '12.34');
      const answer = await f.client.socialPayNative(prepayId);
      expect(answer).toMatchObject({ version: 1, status: 'success' });
      const args = answer.args;
      expect(Object.keys(args).sort()).toEqual(NATIVE_ARG_KEYS);
      expect(args).toMatchObject({
        return_code: 'SUCCESS',
        result_code: 'SUCCESS',
        trade_type: 'NATIVE',
        appid: kit.runtime.config.PAY_SP_APPID,
        mch_id: kit.runtime.config.PAY_SP_MCH_ID,
      });
      expect(args.code_url).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);
      // v3 answers a scan-code order with code_url alone: no prepay id, no v2 signature (docs/payments.md).
      if (backend.protocol === 'v3') expect(args).toMatchObject({ prepay_id: '', sign: '', nonce_str: expect.stringMatching(/^\S+$/) });
      else expect(args.prepay_id).toMatch(/^wx/);

      const before = Date.now();
      const paid = await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url });
      expect(paid).toMatchObject({ status: 200, body: { status: 'success' } });
      expect(paid.body.transactionId).toMatch(/^4200\d+$/);
      const detail = await f.client.waitForPayment(prepayId);
      expect(detail.status).toBe('finish');
      expect(detail.totalAmount).toBe('12.34');
      expect(Date.parse(detail.paymentTime!)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);

      // Paid: no more arguments, and the sandbox refuses a second payment.
      const again = await payApi.native(f.client, prepayId);
      expect(again.httpStatus).toBe(409);
      expect(again.body).toMatchObject({ version: 1, status: 'fail', error: 'order_not_active' });
      expect(await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url })).toMatchObject({ status: 409, body: { status: 'fail' } });
    });

    test('4.2 paymentTime has milliseconds and never comes before createTime, also when paid in the second the order was made', async () => {
      for (let i = 0; i < 3; i++) {
        const prepayId = await newOrder(f, '1.00');
        const { args } = await f.client.socialPayNative(prepayId);
        const before = Date.now();
        expect(await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url })).toMatchObject({ status: 200 });
        const detail = await f.client.waitForPayment(prepayId);
        const after = Date.now();
        const paidAt = Date.parse(detail.paymentTime!);
        // Not the channel's whole second (which starts before the pay call), but when it was paid.
        expect(paidAt).toBeGreaterThanOrEqual(before);
        expect(paidAt).toBeLessThanOrEqual(after);
        expect(paidAt).toBeGreaterThanOrEqual(Date.parse(detail.createTime));
      }
    });

    test('re-requesting arguments for an active order reuses its channel order, also under concurrency', async () => {
      const prepayId = await newOrder(f);
      // A distinct query field per call keeps the signatures distinct (same millisecond, same body).
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) => f.client.call<any>('POST', '/submerchant-pay/socialPayNative', { query: { n }, body: { prepayId } })),
      );
      for (const a of answers) expect(a.httpStatus).toBe(200);
      // The raw answer carries exactly the channel's fields (the typed client would drop extra ones).
      for (const a of answers) expect(Object.keys(a.body.args).sort()).toEqual(NATIVE_ARG_KEYS);
      expect(new Set(answers.map((a) => a.body.args.code_url)).size).toBe(1);
      expect(new Set(answers.map((a) => a.body.args.prepay_id)).size).toBe(1);
      const state = await kit.runtime.services.payments.state(prepayId);
      expect(state.channelOrders).toHaveLength(1);
      expect(state.channelOrders[0].state).toBe('open');
    });

    test('4.4 mini-program: paySign over appId, timeStamp, nonceStr, package, signType; the payer pays with the prepay id', async () => {
      const prepayId = await newOrder(f, '0.01');
      const openId = await sandboxOpenId(kit.url, 'alice', mp);
      expect(openId).toBe(await sandboxOpenId(kit.url, 'alice', mp)); // same user, same open id
      const answer = await payApi.mini(f.client, prepayId, openId);
      expect(answer.httpStatus).toBe(200);
      const args = answer.body.args;
      expect(Object.keys(args).sort()).toEqual(['nonceStr', 'package', 'paySign', 'signType', 'timeStamp']);
      expect(typeof args.timeStamp).toBe('number');
      expect(args.signType).toBe(backend.protocol === 'v3' ? 'RSA' : 'HMAC-SHA256');
      expect(args.package).toMatch(/^prepay_id=wx/);
      expect(payerSignatureValid(kit, 'mini', args, mp.appid)).toBe(true);
      expect(payerSignatureValid(kit, 'mini', { ...args, nonceStr: `${args.nonceStr}x` }, mp.appid)).toBe(false);

      const channelPrepayId = args.package.slice('prepay_id='.length);
      const bob = await sandboxOpenId(kit.url, 'bob', mp);
      expect(await sandboxPost(kit.url, '/pay', { prepayId: channelPrepayId, openId: bob })).toMatchObject({ status: 403, body: { status: 'fail' } });
      expect(await sandboxPost(kit.url, '/pay', { prepayId: channelPrepayId, openId })).toMatchObject({ status: 200, body: { status: 'success' } });
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      expect(await sandboxPost(kit.url, '/pay', { prepayId: channelPrepayId })).toMatchObject({ status: 409 });
    });

    test('4.4 for another payer places a new channel order and closes the old one', async () => {
      const prepayId = await newOrder(f);
      const a = await f.client.socialPay(prepayId, await sandboxOpenId(kit.url, 'carol', mp));
      const b = await f.client.socialPay(prepayId, await sandboxOpenId(kit.url, 'dave', mp));
      expect(a.args.package).not.toBe(b.args.package);
      expect(await sandboxPost(kit.url, '/pay', { prepayId: a.args.package.slice(10) })).toMatchObject({ status: 409, body: { msg: 'the order is closed' } });
      const state = await kit.runtime.services.payments.state(prepayId);
      expect(state.channelOrders.map((c) => c.state).sort()).toEqual(['closed', 'open']);
    });

    test('4.5 app payment: args signed; switching from scan-code closes the code', async () => {
      const prepayId = await newOrder(f, '3.00');
      const native = await f.client.socialPayNative(prepayId);
      // Raw answer: the exact set of fields is part of what is checked.
      const answer = await payApi.app(f.client, prepayId);
      expect(answer.httpStatus).toBe(200);
      const args = answer.body.args;
      expect(Object.keys(args).sort()).toEqual(['appid', 'noncestr', 'package', 'partnerid', 'prepayid', 'sign', 'timestamp']);
      // partnerid: the service provider's number on v3 (wechatpay-java AppServiceExtension: sp_mchid), the
      // sub-merchant's on v2 (the v2 服务商 APP调起支付: 子商户号); docs/payments.md.
      expect(kit.runtime.config.PAY_SP_MCH_ID).not.toBe(SOCIAL_PARAMS.socialMchId);
      const partnerid = backend.protocol === 'v3' ? kit.runtime.config.PAY_SP_MCH_ID : SOCIAL_PARAMS.socialMchId;
      expect(args).toMatchObject({ appid: SOCIAL_PARAMS.socialAppId, partnerid, package: 'Sign=WXPay' });
      // appid: the sub-merchant's app on both protocols, never the service provider's (the v2 服务商 开发指引:
      // appid是子商户的应用APPID; the v3 服务商 APP调起支付: 为二级商户申请的应用appid); docs/payments.md.
      expect(kit.runtime.config.PAY_SP_APPID).not.toBe(SOCIAL_PARAMS.socialAppId);
      expect(args.appid).not.toBe(kit.runtime.config.PAY_SP_APPID);
      expect(payerSignatureValid(kit, 'app', args, mp.appid)).toBe(true);
      expect(payerSignatureValid(kit, 'app', { ...args, prepayid: `${args.prepayid}x` }, mp.appid)).toBe(false);
      // The scan-code order was closed before the app order was placed: only one can be paid.
      expect(await sandboxPost(kit.url, '/pay', { codeUrl: native.args.code_url })).toMatchObject({ status: 409 });
      expect(await sandboxPost(kit.url, '/pay', { prepayId: args.prepayid })).toMatchObject({ status: 200 });
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
    });

    test('4.5 profit sharing only for contracted merchants', async () => {
      const plain = await newOrder(f);
      await f.client.socialPayApp(plain, { enableProfitSharing: true });
      expect((await kit.runtime.services.payments.state(plain)).channelOrders[0].profit_sharing).toBe(0);

      const g = await payFixture(kit);
      await kit.runtime.services.merchants.setContracted(g.parentId, true);
      const shared = await newOrder(g);
      const answer = await g.client.socialPayApp(shared, { enableProfitSharing: true });
      expect(answer.args.package).toBe('Sign=WXPay');
      expect((await kit.runtime.services.payments.state(shared)).channelOrders[0].profit_sharing).toBe(1);
      const sandboxOrder = await sandboxTables(kit)
        .selectFrom('sandbox_orders')
        .selectAll()
        .where('prepay_id', '=', answer.args.prepayid)
        .executeTakeFirstOrThrow();
      expect(sandboxOrder.profit_sharing).toBe(1);
    });

    test('card-network channel: mini-program payment through the acquirer when the sub-merchant has its parameters', async () => {
      const g = await payFixture(kit);
      await g.client.setPaymentParams(g.subId, 'SocialCardNetworkBizSmall', { cardNetworkBizMchId: '898000000001', terminalId: 'T0001' });
      const prepayId = await newOrder(g, '5.55');
      const openId = await sandboxOpenId(kit.url, 'erin', mp);
      const { args } = await g.client.socialPay(prepayId, openId);
      const cardKey = kit.runtime.config.CARD_KEY!;
      // The acquirer speaks protocol v2 whatever PAY_PROTOCOL says.
      if (args.signType === 'RSA') throw new Error('the card-network channel signs with its v2 key');
      expect(args.paySign).toBe(
        signFields(
          { appId: mp.appid, timeStamp: args.timeStamp, nonceStr: args.nonceStr, package: args.package, signType: args.signType },
          cardKey,
          args.signType,
        ),
      );
      const state = await kit.runtime.services.payments.state(prepayId);
      expect(state.channelOrders[0].channel).toBe('SocialCardNetworkBizSmall');
      expect(await sandboxPost(kit.url, '/pay', { prepayId: args.package.slice(10), openId })).toMatchObject({ status: 200 });
      expect((await g.client.waitForPayment(prepayId)).status).toBe('finish');
      // Scan-code stays on the social channel, which this merchant has not configured beyond its parent.
      expect((await g.client.socialPayNative(await newOrder(g))).status).toBe('success');
    });

    test('missing channel parameters: a clear 4xx and nothing placed', async () => {
      const app = await kit.newApp();
      const pm = await app.client.createMerchant({ type: 'merchant', parameters: { displayName: 'P', pw: 'password-123', appId: app.appId } });
      const sm = await app.client.createMerchant({
        type: 'subMerchant',
        parameters: { displayName: 'S', pw: 'password-123', appId: app.appId, parentMerchantId: pm.data.id },
      });
      const prepayId = (await app.client.createPrepay({ subMerchantId: sm.data.id, totalAmount: '1.00' })).prepayId;
      const a = await payApi.native(app.client, prepayId);
      expect(a.httpStatus).toBe(400);
      expect(a.body).toMatchObject({ status: 'fail', error: 'payment_params_missing' });
      expect(a.body.msg).toMatch(/socialMchId/);
      // App payment needs socialAppId as well.
      await app.client.setPaymentParams(pm.data.id, 'SocialNative', { socialMchId: '1230000200' });
      const b = await payApi.app(app.client, prepayId);
      expect(b.body).toMatchObject({ status: 'fail', error: 'payment_params_missing' });
      expect(b.body.msg).toMatch(/socialAppId/);
      expect((await kit.runtime.services.payments.state(prepayId)).channelOrders).toHaveLength(0);
      expect((await app.client.socialPayNative(prepayId)).args.code_url).toMatch(/^weixin:/);
    });

    test('signed, and only the order creator or the merchants’ owners see the order', async () => {
      const prepayId = await newOrder(f);
      const stranger = await kit.newApp();
      const a = await payApi.native(stranger.client, prepayId);
      expect(a.httpStatus).toBe(404);
      expect(a.body.error).toBe('not_found');
      const unsigned = await f.client.call<any>('POST', '/submerchant-pay/socialPayNative', { body: { prepayId }, unsigned: true });
      expect(unsigned.httpStatus).toBe(401);
      const bad = await f.client.call<any>('POST', '/submerchant-pay/socialPay', { body: { prepayId, openId: 'has spaces' } });
      expect(bad.httpStatus).toBe(400);
      expect(bad.body.error).toBe('invalid_request');
      const unknown = await payApi.native(f.client, 'NoSuchOrder1');
      expect(unknown.httpStatus).toBe(404);
    });

    test('a held detail call is woken at once by the payment', async () => {
      const prepayId = await newOrder(f);
      const { args } = await f.client.socialPayNative(prepayId);
      const waiting = kit.runtime.services.events.waiting;
      const started = Date.now();
      const held = f.client.prepayDetail(prepayId, { wait: true });
      await waitFor(() => kit.runtime.services.events.waiting > waiting, 'the detail call to be held');
      await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url });
      const detail = await held;
      expect(detail.status).toBe('finish');
      // The hold of this kit is 20 s; being woken is far quicker than that.
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  },
  { protocols: BOTH_PROTOCOLS },
);

describeEachBackend(
  'expiry and sign type',
  (backend) => {
    test('an expired order answers order_not_active and its channel order is closed', async () => {
      const kit = await startTestKit(backend, { ...ENV, ORDER_TTL: '1500ms' });
      try {
        const f = await payFixture(kit);
        const prepayId = await newOrder(f);
        const { args } = await f.client.socialPayNative(prepayId);
        await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'cancel', 'expiry');
        await waitFor(async () => (await kit.runtime.services.payments.state(prepayId)).channelOrders[0].state === 'closed', 'channel close');
        const again = await payApi.native(f.client, prepayId);
        expect(again.httpStatus).toBe(409);
        expect(again.body).toMatchObject({ status: 'fail', error: 'order_not_active' });
        expect(await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url })).toMatchObject({ status: 409 });
      } finally {
        await kit.close();
      }
    });

    // v3 signs with RSA whatever PAY_SIGN_TYPE says: the setting is protocol v2's.
    (backend.protocol === 'v2' ? test : test.skip)('MD5 sign type end to end: the order remembers it for the notification', async () => {
      const kit = await startTestKit(backend, { ...ENV, PAY_SIGN_TYPE: 'MD5' });
      try {
        const f = await payFixture(kit);
        const prepayId = await newOrder(f);
        const openId = await sandboxOpenId(kit.url, 'md5-user', { appid: kit.runtime.config.MP_APPID!, secret: kit.runtime.config.MP_SECRET! });
        const { args } = await f.client.socialPay(prepayId, openId);
        expect(args.signType).toBe('MD5');
        expect(args.paySign).toMatch(/^[0-9A-F]{32}$/);
        await sandboxPost(kit.url, '/pay', { prepayId: args.package.slice(10) });
        expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
        expect((await kit.runtime.services.payments.state(prepayId)).channelOrders[0].sign_type).toBe('MD5');
      } finally {
        await kit.close();
      }
    });
  },
  { protocols: BOTH_PROTOCOLS },
);
