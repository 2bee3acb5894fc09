/**
 * Payment codes over API v3 (partner mode) with the kit configured as for a real merchant account
 * (the v3 settings in public-key mode and PAY_GATEWAY_URL; no sandbox) against a platform that
 * follows the published rules and shares no code with the kit (`support/v3-platform.ts`:
 * node:crypto, node:http and wechatpay-axios-plugin's own helpers). The sandbox's platform is built
 * from the kit's own code, and the stand-in of `payments-v3-platform.test.ts` sits in front of it,
 * so neither can tell whether the kit speaks API v3 as the platform does; this one can. On SQLite
 * and PostgreSQL: a code pays at once; a code the payer confirms answers `waiting` at once and
 * finishes when they do (the follow-up's query); one never confirmed is reversed after
 * CODE_PAY_WAIT and the order is then paid by another code; a refused code changes nothing; a code
 * without an answer is reversed and its money goes back; and the platform saw exactly the calls
 * the published flow implies, each signed as its rules say.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Wechatpay } from 'wechatpay-axios-plugin';
import type { KitApiError } from '@kit/shared';
import { describeEachBackend } from '../support/backends';
import { startTestKit, type TestKit } from '../support/kit';
import { newOrder, payFixture, SOCIAL_PARAMS, type PayFixture } from '../support/payments';
import { startV3Platform, type V3Platform } from '../support/v3-platform';
import { waitFor } from '../support/wait';

test('the platform shares no code with the kit: it imports node built-ins and wechatpay-axios-plugin only', () => {
  const source = readFileSync(path.join(__dirname, '../support/v3-platform.ts'), 'utf8');
  const imports = [...source.matchAll(/(?:import|from|require\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((i) => !i.startsWith('node:') && i !== 'wechatpay-axios-plugin')).toEqual([]);
});

test("the platform takes what wechatpay-axios-plugin's own client signs, and the client verifies its answers; another key is refused", async () => {
  const platform = await startV3Platform();
  try {
    platform.addSubMerchant(SOCIAL_PARAMS.socialMchId);
    const client = (privateKey: string) =>
      new Wechatpay({
        mchid: platform.spMchid,
        serial: platform.merchant.serial,
        privateKey,
        certs: { [platform.platformKey.id]: platform.platformKey.publicKeyPem },
        baseURL: `${platform.url}/`,
      });
    const body = {
      sp_appid: platform.spAppid,
      sp_mchid: platform.spMchid,
      sub_mchid: SOCIAL_PARAMS.socialMchId,
      description: 'Corner Shop',
      out_trade_no: 'PLUGIN0000000001',
      payer: { auth_code: platform.paymentCode('pay') },
      amount: { total: 100, currency: 'CNY' },
      scene_info: { store_info: { out_id: 'SHOP-1' } },
    };
    // The plugin throws on an answer whose signature does not verify: this one does.
    const paid = await client(platform.merchant.privateKeyPem).v3.pay.partner.transactions.codepay.post(body);
    expect(paid.status).toBe(200);
    expect(paid.data).toMatchObject({ out_trade_no: 'PLUGIN0000000001', trade_state: 'SUCCESS', amount: { total: 100, payer_total: 100 } });
    const impostor = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const forged = await client(impostor)
      .v3.pay.partner.transactions.outTradeNo._out_trade_no_.get({
        out_trade_no: 'PLUGIN0000000001',
        params: { sp_mchid: platform.spMchid, sub_mchid: SOCIAL_PARAMS.socialMchId },
      })
      .then(
        () => undefined,
        (e: { response?: { status: number; data: unknown } }) => e.response,
      );
    expect(forged).toMatchObject({ status: 401, data: { code: 'SIGN_ERROR' } });
    expect(platform.refused.map((r) => r.reason)).toEqual(['signature']);
  } finally {
    await platform.close();
  }
});

/** The platform's calls about one trade, in the words of its published flow, runs of the same call told once. */
function stepsOf(platform: V3Platform, outTradeNo: string): string[] {
  const steps = platform.calls
    .filter((c) => c.body?.out_trade_no === outTradeNo || c.path.includes(`/out-trade-no/${outTradeNo}`))
    .map((c) => (c.path.endsWith('/codepay') ? 'codepay' : c.path.endsWith('/reverse') ? 'reverse' : 'query'));
  return steps.filter((s, i) => s !== steps[i - 1]);
}

describeEachBackend(
  'payment codes over API v3 against an independent platform',
  (backend) => {
    let platform: V3Platform;
    let kit: TestKit;
    let f: PayFixture;

    beforeAll(async () => {
      platform = await startV3Platform();
      platform.addSubMerchant(SOCIAL_PARAMS.socialMchId);
      // A gateway call's limit of 2 s: a code without an answer is given up (and reversed) after it.
      kit = await startTestKit(backend, { SANDBOX_ENABLED: 'false', ...platform.settings, CODE_PAY_WAIT: '30s', PAY_GATEWAY_TIMEOUT: '2s' });
      f = await payFixture(kit);
    });
    afterEach(() => {
      // Every request of the kit's was signed as the rules say, and went to an endpoint the platform serves.
      expect(platform.refused).toEqual([]);
      expect(platform.unserved).toEqual([]);
    });
    afterAll(async () => {
      await kit?.close();
      await platform?.close();
    });

    const codeOrders = async (prepayId: string) =>
      (await kit.runtime.services.payments.state(prepayId)).channelOrders.filter((c) => c.trade_type === 'MICROPAY');
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => {
          throw new Error('expected a refusal');
        },
        (e: KitApiError) => ({ http: e.httpStatus, error: e.error, msg: e.body.msg as string }),
      );

    test('a code pays at once: `paid`, the order finishes; one codepay, with the fields of the partner code payment', async () => {
      const prepayId = await newOrder(f, '8.80');
      const code = platform.paymentCode('pay');
      expect(await f.client.codePay(prepayId, code, 'POS-01')).toEqual({ version: 1, status: 'success', args: { result: 'paid', channel: 'SocialNative' } });
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      const [co] = await codeOrders(prepayId);
      expect(co).toMatchObject({ state: 'paid', paid_via: 'answer', transaction_id: platform.trade(co.out_trade_no)!.transactionId });
      await kit.settle();
      expect(stepsOf(platform, co.out_trade_no)).toEqual(['codepay']);
      const [sent] = platform.calls.filter((c) => c.body?.out_trade_no === co.out_trade_no);
      expect(sent.body).toEqual({
        sp_appid: platform.spAppid,
        sp_mchid: platform.spMchid,
        sub_appid: SOCIAL_PARAMS.socialAppId,
        sub_mchid: SOCIAL_PARAMS.socialMchId,
        description: expect.any(String),
        out_trade_no: co.out_trade_no,
        attach: prepayId,
        payer: { auth_code: code },
        amount: { total: 880, currency: 'CNY' },
        // Required by the partner code payment: the counter's device and the shop, by the merchant's own code.
        scene_info: { device_id: 'POS-01', store_info: { out_id: f.subId } },
      });
    });

    test('a code the payer confirms answers `waiting` at once (202 USERPAYING) and finishes when they confirm, found by the query', async () => {
      const prepayId = await newOrder(f, '9.90');
      const code = platform.paymentCode('confirm');
      expect(await f.client.pay({ prepayId, way: 'codePay', authCode: code })).toEqual({
        version: 1,
        status: 'success',
        args: { result: 'waiting', channel: 'SocialNative' },
      });
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      const [co] = await codeOrders(prepayId);
      expect(platform.trade(co.out_trade_no)?.state).toBe('USERPAYING');
      // The payer types the password on the phone; the kit's follow-up asks 5 s later.
      platform.confirm(code);
      await kit.advance('5s');
      await waitFor(async () => (await f.client.prepayDetail(prepayId)).status === 'finish', 'finished');
      expect((await codeOrders(prepayId))[0]).toMatchObject({
        state: 'paid',
        paid_via: 'query',
        transaction_id: platform.trade(co.out_trade_no)!.transactionId,
      });
      expect(stepsOf(platform, co.out_trade_no)).toEqual(['codepay', 'query']);
    });

    test('a code never confirmed is reversed after CODE_PAY_WAIT; the order stays payable and another code pays it', async () => {
      const prepayId = await newOrder(f, '10.10');
      expect((await f.client.codePay(prepayId, platform.paymentCode('confirm'))).args.result).toBe('waiting');
      const [waiting] = await codeOrders(prepayId);
      await kit.advance('25s');
      expect((await codeOrders(prepayId))[0].state).toBe('open');
      await kit.advance('6s');
      expect((await codeOrders(prepayId))[0].state).toBe('cancelled');
      // Closed at the platform: nothing had been taken.
      expect(platform.trade(waiting.out_trade_no)).toMatchObject({ state: 'REVOKED', returned: false });
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      // The payer refreshes the code; this one pays.
      expect((await f.client.codePay(prepayId, platform.paymentCode('pay'))).args.result).toBe('paid');
      expect((await f.client.prepayDetail(prepayId)).status).toBe('finish');
      const paid = (await codeOrders(prepayId)).find((c) => c.state === 'paid')!;
      await kit.settle();
      expect(stepsOf(platform, waiting.out_trade_no)).toEqual(['codepay', 'query', 'reverse']);
      expect(stepsOf(platform, paid.out_trade_no)).toEqual(['codepay']);
    });

    test('a code the platform refuses changes nothing (402 payment_code_refused with its code); used again, it is refused again', async () => {
      const prepayId = await newOrder(f, '11.00');
      const code = platform.paymentCode('balance');
      const first = await refusal(f.client.codePay(prepayId, code));
      expect(first).toMatchObject({ http: 402, error: 'payment_code_refused' });
      expect(first.msg).toContain('NOT_ENOUGH');
      const again = await refusal(f.client.codePay(prepayId, code));
      expect(again).toMatchObject({ http: 402, error: 'payment_code_refused' });
      expect(again.msg).toContain('AUTH_CODE_INVALID');
      // Nothing is left to follow.
      await kit.advance('35s');
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      const cos = await codeOrders(prepayId);
      expect(cos.map((c) => c.state)).toEqual(['failed', 'failed']);
      for (const co of cos) expect(stepsOf(platform, co.out_trade_no)).toEqual(['codepay']);
    });

    test("a request the platform refuses as a request (signed with a key it does not know) is the kit's channel_error, not the payer's code; nothing changes", async () => {
      const wrongKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      const misconfigured = await startTestKit(backend, {
        SANDBOX_ENABLED: 'false',
        ...platform.settings,
        PAY_SP_PRIVATE_KEY: wrongKey,
        CODE_PAY_WAIT: '30s',
        PAY_GATEWAY_TIMEOUT: '2s',
      });
      try {
        const g = await payFixture(misconfigured);
        const prepayId = await newOrder(g, '3.00');
        const answer = await refusal(g.client.codePay(prepayId, platform.paymentCode('pay')));
        expect(answer).toMatchObject({ http: 502, error: 'channel_error' });
        expect(answer.msg).toContain('SIGN_ERROR');
        expect(answer.msg).toContain("the merchant's payment settings need checking");
        expect((await g.client.prepayDetail(prepayId)).status).toBe('active');
        const cos = (await misconfigured.runtime.services.payments.state(prepayId)).channelOrders;
        expect(cos.map((c) => c.state)).toEqual(['failed']);
        expect(platform.refused.map((r) => r.url)).toEqual([expect.stringContaining('/codepay')]);
      } finally {
        platform.refused.length = 0;
        await misconfigured.close();
      }
    });

    test('a code whose answer never comes is reversed at once: the money taken goes back, the order stays payable', async () => {
      const prepayId = await newOrder(f, '12.00');
      const answered = refusal(f.client.codePay(prepayId, platform.paymentCode('silent')));
      await waitFor(
        async () => (await codeOrders(prepayId))[0] && stepsOf(platform, (await codeOrders(prepayId))[0].out_trade_no).length > 0,
        'the codepay sent',
      );
      // The call's time limit (PAY_GATEWAY_TIMEOUT) passes on the service's clock.
      await kit.advance('2s');
      expect(await answered).toMatchObject({ http: 503, error: 'channel_unavailable', msg: expect.stringContaining('was cancelled') });
      const [co] = await codeOrders(prepayId);
      expect(co.state).toBe('cancelled');
      expect(platform.trade(co.out_trade_no)).toMatchObject({ state: 'REVOKED', returned: true });
      await kit.settle();
      expect((await f.client.prepayDetail(prepayId)).status).toBe('active');
      expect(stepsOf(platform, co.out_trade_no)).toEqual(['codepay', 'reverse']);
    });
  },
  { protocols: ['v3'] },
);
