/**
 * The payer's payment code at the counter (7.4) over protocol v2 (`PAY_PROTOCOL=v2`), through real
 * HTTP on both databases: `pay/micropay` with the fields of the platform's service-provider micropay
 * (signed, as the stand-in checks), the order query while the payer confirms, and
 * `secapi/pay/reverse` when the code is not confirmed within CODE_PAY_WAIT (the clock advanced), when
 * its call got no answer, and again when the platform answers `recall: Y`. A refused code changes
 * nothing. The calls go through a recording proxy in front of the sandbox, so that what the kit sent
 * is read as the platform reads it.
 */
import { KitApiError } from '@kit/shared';
import { signFields, verifyFields } from '../../src/payments/providers/protocol-v2/sign';
import { parseXml, type Fields } from '../../src/payments/providers/protocol-v2/xml';
import { describeEachBackend } from '../support/backends';
import { sandboxTables, startTestKit, type TestKit } from '../support/kit';
import { newOrder, payFixture, sandboxPost, SOCIAL_PARAMS, startReceiver, type PayFixture } from '../support/payments';
import { startPlatformProxy, type PlatformProxy } from '../support/platform-proxy';
import { waitFor } from '../support/wait';

describeEachBackend(
  'payment codes over protocol v2',
  (backend) => {
    let kit: TestKit;
    let proxy: PlatformProxy;
    let f: PayFixture;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    beforeAll(async () => {
      proxy = await startPlatformProxy();
      receiver = await startReceiver();
      kit = await startTestKit(backend, { PAY_GATEWAY_URL: proxy.url, CODE_PAY_WAIT: '30s', PAY_GATEWAY_TIMEOUT: '2s' });
      proxy.target = `${kit.url}/sandbox`;
      f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/cb` });
    });
    afterEach(() => sandboxPost(kit.url, '/faults', {}));
    afterAll(async () => {
      await kit.close();
      await proxy.close();
      await receiver.close();
    });

    const codeOf = async (behaviour: string): Promise<string> => {
      const r = await sandboxPost(kit.url, '/payment-code', { wallet: 'social', behaviour });
      expect(r.status).toBe(200);
      return r.body.code as string;
    };
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => {
          throw new Error('expected a refusal');
        },
        (e: KitApiError) => ({ http: e.httpStatus, error: e.error, msg: e.body.msg as string }),
      );
    const codeOrders = async (prepayId: string) =>
      (await kit.runtime.services.payments.state(prepayId)).channelOrders.filter((c) => c.trade_type === 'MICROPAY');
    const atPlatform = async (outTradeNo: string) =>
      (await sandboxTables(kit).selectFrom('sandbox_orders').select('state').where('out_trade_no', '=', outTradeNo).executeTakeFirst())?.state;
    /** The protocol calls the kit sent for a channel order, read as the platform reads them. */
    const sent = (path: string, outTradeNo: string): Fields[] =>
      proxy.calls
        .filter((c) => c.url === path)
        .map((c) => parseXml(c.body))
        .filter((x) => x.out_trade_no === outTradeNo);
    const key = () => (kit.runtime.config as { PAY_SP_KEY?: string }).PAY_SP_KEY!;

    test('a code pays at once: micropay with the documented fields, signed; `paid`, the order finishes with one callback', async () => {
      const prepayId = await newOrder(f, '8.80');
      const code = await codeOf('pay');
      expect(await f.client.codePay(prepayId, code, 'POS-01')).toEqual({ version: 1, status: 'success', args: { result: 'paid', channel: 'SocialNative' } });
      expect(await f.client.prepayDetail(prepayId)).toMatchObject({ status: 'finish' });
      const [co] = await codeOrders(prepayId);
      expect(co).toMatchObject({ state: 'paid', paid_via: 'answer', sign_type: 'HMAC-SHA256', trade_type: 'MICROPAY' });
      const [micropay] = sent('/pay/micropay', co.out_trade_no);
      const { sign: _s, nonce_str: nonce, ...fields } = micropay;
      expect(fields).toEqual({
        appid: kit.runtime.config.PAY_SP_APPID,
        mch_id: kit.runtime.config.PAY_SP_MCH_ID,
        sub_appid: SOCIAL_PARAMS.socialAppId,
        sub_mch_id: SOCIAL_PARAMS.socialMchId,
        device_info: 'POS-01',
        body: 'Corner Shop',
        attach: prepayId,
        out_trade_no: co.out_trade_no,
        total_fee: '880',
        fee_type: 'CNY',
        spbill_create_ip: '127.0.0.1',
        auth_code: code,
        sign_type: 'HMAC-SHA256',
      });
      expect(nonce).toMatch(/^[0-9a-f]{32}$/);
      expect(verifyFields(micropay, key(), 'HMAC-SHA256')).toBe(true);
      expect(micropay.sign).toBe(signFields(micropay, key(), 'HMAC-SHA256'));
      expect(await atPlatform(co.out_trade_no)).toBe('SUCCESS');
      await waitFor(() => receiver.received.some((r) => JSON.parse(r.body).prepayId === prepayId), 'the callback');
      await kit.settle();
      expect(receiver.received.filter((r) => JSON.parse(r.body).prepayId === prepayId)).toHaveLength(1);
    });

    test('a code the payer confirms answers `waiting` at once; the order query finds it paid', async () => {
      const prepayId = await newOrder(f, '9.90');
      const code = await codeOf('never');
      expect((await f.client.pay({ prepayId, way: 'codePay', authCode: code })).args).toEqual({ result: 'waiting', channel: 'SocialNative' });
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      const [co] = await codeOrders(prepayId);
      expect(await atPlatform(co.out_trade_no)).toBe('USERPAYING');
      expect((await sandboxPost(kit.url, '/payment-code/confirm', { code })).status).toBe(200);
      await kit.advance('5s');
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'finish', 'finished');
      expect((await codeOrders(prepayId))[0]).toMatchObject({ state: 'paid', paid_via: 'query' });
      expect(sent('/pay/orderquery', co.out_trade_no).length).toBeGreaterThan(0);
      expect(sent('/secapi/pay/reverse', co.out_trade_no)).toEqual([]);
    });

    test('a code never confirmed is reversed after CODE_PAY_WAIT; the order stays payable and another code pays it', async () => {
      const prepayId = await newOrder(f, '10.10');
      expect((await f.client.codePay(prepayId, await codeOf('never'))).args.result).toBe('waiting');
      const [waiting] = await codeOrders(prepayId);
      await kit.advance('25s');
      expect((await codeOrders(prepayId))[0].state).toBe('open');
      expect(await atPlatform(waiting.out_trade_no)).toBe('USERPAYING');
      await kit.advance('6s');
      expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
      expect(await atPlatform(waiting.out_trade_no)).toBe('REVOKED');
      const [reverse] = sent('/secapi/pay/reverse', waiting.out_trade_no);
      expect(reverse).toMatchObject({ appid: kit.runtime.config.PAY_SP_APPID, sub_mch_id: SOCIAL_PARAMS.socialMchId, sign_type: 'HMAC-SHA256' });
      expect(verifyFields(reverse, key(), 'HMAC-SHA256')).toBe(true);
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      expect((await f.client.codePay(prepayId, await codeOf('pay'))).args.result).toBe('paid');
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
    });

    test('a refused code changes nothing; used again, it is refused as expired', async () => {
      const prepayId = await newOrder(f, '11.00');
      const code = await codeOf('balance');
      const first = await refusal(f.client.codePay(prepayId, code));
      expect(first).toMatchObject({ http: 402, error: 'payment_code_refused' });
      expect(first.msg).toContain('NOTENOUGH');
      const [co] = await codeOrders(prepayId);
      expect(co.state).toBe('failed');
      const again = await refusal(f.client.codePay(prepayId, code));
      expect(again.msg).toContain('AUTHCODEEXPIRE');
      await kit.advance('1m');
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      // Nothing was taken: nothing to reverse.
      expect(sent('/secapi/pay/reverse', co.out_trade_no)).toEqual([]);
    });

    test('a code without an answer is reversed at once: the money taken goes back, the order stays payable', async () => {
      const prepayId = await newOrder(f, '12.00');
      const lost = await refusal(f.client.codePay(prepayId, await codeOf('silent')));
      expect(lost).toMatchObject({ http: 503, error: 'channel_unavailable' });
      expect(lost.msg).toContain('was cancelled');
      const [co] = await codeOrders(prepayId);
      expect(co.state).toBe('cancelled');
      expect(await atPlatform(co.out_trade_no)).toBe('REVOKED');
      expect(sent('/secapi/pay/reverse', co.out_trade_no)).toHaveLength(1);
      await kit.settle();
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
    });

    test('a reverse the platform asks for again (`recall: Y`) is sent again until it is done', async () => {
      expect((await sandboxPost(kit.url, '/faults', { reverseRecalls: 2 })).status).toBe(200);
      const prepayId = await newOrder(f, '13.00');
      expect((await f.client.codePay(prepayId, await codeOf('never'))).args.result).toBe('waiting');
      const [co] = await codeOrders(prepayId);
      // The clock stands still between the steps: the reverse asked again a second later is not sent
      // before the test moves it (flowing, a busy machine's second passed before the count was read).
      kit.clock.freeze();
      try {
        await kit.advance('31s');
        expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
        expect(sent('/secapi/pay/reverse', co.out_trade_no)).toHaveLength(1);
        expect(await atPlatform(co.out_trade_no)).toBe('USERPAYING');
        await kit.advance('1s');
        expect(sent('/secapi/pay/reverse', co.out_trade_no)).toHaveLength(2);
        expect(await atPlatform(co.out_trade_no)).toBe('USERPAYING');
        await kit.advance('1s');
        expect(sent('/secapi/pay/reverse', co.out_trade_no)).toHaveLength(3);
        expect(await atPlatform(co.out_trade_no)).toBe('REVOKED');
        await kit.advance('1m');
        expect(sent('/secapi/pay/reverse', co.out_trade_no)).toHaveLength(3);
      } finally {
        kit.clock.resume();
      }
    });
  },
  { protocols: ['v2'] },
);
