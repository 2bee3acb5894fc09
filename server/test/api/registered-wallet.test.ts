/**
 * The measure of docs/architecture.md's "Adding a wallet": a wallet that exists only in tests, Acme
 * Pay (`support/test-wallet/`: its looks and declaration, its provider, its platform's stand-in),
 * registered with the composition root by its line in the providers' list, pays through
 * `POST /submerchant-pay/pay`, its way's own endpoint and the typed client; its signed notification
 * completes the payment, the merchant's callback is sent, and a refund goes through it to its end;
 * its settings section is part of the configuration, its way of `/openapi.json`, its channel of 4.7
 * and its payment codes of `codePay`. On both databases. (The POS: `test/browser/pos-registered-wallet.test.ts`.)
 */
import { KitClient, WALLETS, verifyCallback } from '@kit/shared';
import { TestClock } from '@kit/shared/test-clock';
import { loadConfig } from '../../src/configuration';
import { API_ROUTES } from '../../src/routes';
import { walletsOf } from '../../src/payments/providers/in-use';
import { PROVIDERS } from '../../src/payments/providers/registry';
import { describeEachBackend } from '../support/backends';
import { createMerchants, startTestKit, type TestKit } from '../support/kit';
import { startReceiver } from '../support/payments';
import { waitFor } from '../support/wait';
import { WITH_ACME, acmeWallet, startAcmeStandIn, type AcmeStandIn } from '../support/test-wallet';

const KEY = 'acme-api-key-for-tests-0001';

describeEachBackend('a wallet registered with the composition root (Acme Pay, test-only)', (backend) => {
  let kit: TestKit;
  let acmePay: AcmeStandIn;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** A merchant backend's client that knows Acme Pay's ways. */
  let client: KitClient<typeof acmeWallet>;
  let shop: { parentId: string; subId: string; pw: string; appId: string; appSecret: string };

  beforeAll(async () => {
    const clock = new TestClock();
    acmePay = await startAcmeStandIn(KEY, () => clock.now());
    receiver = await startReceiver();
    kit = await startTestKit(backend, { ACME_GATEWAY_URL: acmePay.url, ACME_API_KEY: KEY }, { clock, providers: WITH_ACME });
    const app = await kit.newApp();
    const m = await createMerchants(app.client, app.appId, { parent: 'Acme Parent', sub: 'Acme Corner' });
    shop = { ...m, appId: app.appId, appSecret: app.appSecret };
    client = new KitClient({ baseUrl: kit.url, appId: app.appId, appSecret: app.appSecret, clock, wallets: [acmeWallet] });
    await client.setPaymentParams(m.parentId, 'Acme', { acmeMerchantId: 'acme-merchant-7', notifyCallbackUrl: `${receiver.url}/kit-callback` });
  });
  afterAll(async () => {
    await kit?.close();
    await acmePay?.close();
    await receiver?.close();
  });

  const newOrder = async (amount = '23.45') => (await client.createPrepay({ subMerchantId: shop.subId, totalAmount: amount })).prepayId;
  const channelOrderOf = async (prepayId: string) => (await kit.runtime.services.payments.state(prepayId)).channelOrders.find((c) => c.channel === 'Acme');
  const callbacksOf = (prepayId: string) =>
    receiver.received.filter((r) => verifyCallback({ method: 'POST', url: r.url, rawBody: r.body }, shop.appSecret).prepayId === prepayId);

  test('its settings section is the configuration’s: composed by the root, refused at start as the kit’s are', () => {
    expect(kit.runtime.config).toMatchObject({ ACME_GATEWAY_URL: acmePay.url, ACME_API_KEY: KEY });
    expect(() => loadConfig({ ACME_API_KEY: KEY }, WITH_ACME)).toThrow(/ACME_GATEWAY_URL and ACME_API_KEY: set both, or neither/);
    expect(() => loadConfig({ ACME_API_KEY: 'short' }, WITH_ACME)).toThrow(/ACME_API_KEY: must be at least 16 characters/);
    // Without its line the kit knows none of it: registration is the root's list, not a global.
    expect(loadConfig({ ACME_API_KEY: KEY })).not.toHaveProperty('ACME_API_KEY');
    expect(API_ROUTES.map((r) => r.path)).not.toContain('/submerchant-pay/acmeNative');
    // The kit's own list speaks for the wallets the client, the front ends and docs/api.md read (`WALLETS`); this service's adds Acme Pay.
    expect(walletsOf(PROVIDERS).wallets).toEqual([...WALLETS]);
    expect(kit.runtime.services.wallets.wallets).toEqual([...WALLETS, acmeWallet]);
  });

  test('pays through POST /submerchant-pay/pay, its own endpoint and the typed client; its notification completes it; the callback is sent', async () => {
    // Frozen: the payment follower's query cannot come due, so the notification is what completes the payment.
    kit.clock.freeze();
    try {
      await paysAndCallsBack();
    } finally {
      kit.clock.resume();
    }
  });

  async function paysAndCallsBack() {
    const prepayId = await newOrder();
    const raw = await client.call('POST', '/submerchant-pay/pay', { body: { prepayId, way: 'acmeNative' } });
    expect(raw).toEqual({ httpStatus: 200, body: { version: 1, status: 'success', args: { qr: expect.stringMatching(/^acme:\/\/pay\/Q\d{10}$/) } } });
    const qr = (raw.body as { args: { qr: string } }).args.qr;
    // The way's own endpoint, generated from the same declaration, answers the same (the order's one payable order at Acme).
    expect((await client.call('POST', '/submerchant-pay/acmeNative', { body: { prepayId } })).body).toEqual(raw.body);
    const typed = await client.pay({ prepayId, way: 'acmeNative' });
    expect(typed.args.qr).toBe(qr);
    expect(acmePay.calls.filter((c) => c.startsWith('/v1/orders '))).toHaveLength(1);

    // The payer scans the code with Acme Pay: Acme's signed notification reaches the kit and is acknowledged.
    const note = await acmePay.scan(qr);
    expect([note.status, note.answer]).toEqual([200, 'ok']);
    const detail = await client.prepayDetail(prepayId);
    expect(detail).toMatchObject({ status: 'finish', totalAmount: '23.45' });
    expect(await channelOrderOf(prepayId)).toMatchObject({
      state: 'paid',
      paid_via: 'notification',
      transaction_id: acmePay.order((await channelOrderOf(prepayId))!.out_trade_no)!.paymentId,
    });

    await kit.settle();
    const [callback] = await waitFor(() => (callbacksOf(prepayId).length ? callbacksOf(prepayId) : undefined), 'the finish callback');
    expect(callback.url).toMatch(/^\/kit-callback\?_appid=/);
    expect(verifyCallback({ method: 'POST', url: callback.url, rawBody: callback.body }, shop.appSecret, { appId: shop.appId })).toMatchObject({
      prepayId,
      status: 'finish',
      subMerchantId: shop.subId,
      merchantId: shop.parentId,
    });
  }

  test('a notification not signed by Acme Pay is refused and changes nothing', async () => {
    const prepayId = await newOrder('5.00');
    await client.pay({ prepayId, way: 'acmeNative' });
    const co = (await channelOrderOf(prepayId))!;
    const body = { type: 'payment.succeeded', order_no: co.out_trade_no, payment_id: 'P-forged', amount: 500, paid_at: kit.clock.now() };
    const forged = await acmePay.notify(`${kit.url}/pay-notify/acme/pay`, body, 'not-the-acme-key-000000');
    expect([forged.status, forged.answer]).toEqual([400, 'refused: Acme-Signature does not match']);
    expect((await client.prepayDetail(prepayId)).status).toBe('active');
    expect(await channelOrderOf(prepayId)).toMatchObject({ state: 'open', transaction_id: null });
  });

  test('a refund: accepted by Acme Pay, completed by its notification; the order is refunded and the refunded callback sent', async () => {
    const prepayId = await newOrder('8.80');
    const { args } = await client.pay({ prepayId, way: 'acmeNative' });
    await acmePay.scan(args.qr);
    const { loginToken } = await client.login(shop.subId, shop.pw);
    expect(await client.refund(prepayId, loginToken)).toEqual({ version: 1, status: 'success' });
    const refund = (await kit.runtime.services.payments.state(prepayId)).refund!;
    expect(acmePay.refund(refund.out_refund_no)).toMatchObject({ state: 'pending', amount: 880 });

    const note = await acmePay.completeRefund(refund.out_refund_no);
    expect([note.status, note.answer]).toEqual([200, 'ok']);
    expect((await client.prepayDetail(prepayId)).status).toBe('refunded');
    const sent = await waitFor(() => (callbacksOf(prepayId).length === 2 ? callbacksOf(prepayId) : undefined), 'the finish and refunded callbacks');
    expect(sent.map((c) => verifyCallback({ url: c.url, rawBody: c.body }, shop.appSecret).status)).toEqual(['finish', 'refunded']);
  });

  test('the payer’s code at the counter (codePay) goes to the wallet its digits name: Acme Pay’s', async () => {
    const prepayId = await newOrder('3.10');
    const paid = await client.pay({ prepayId, way: 'codePay', authCode: '991234567890123456', deviceId: 'POS-7' });
    expect(paid.args).toEqual({ result: 'paid', channel: 'Acme' });
    expect(await client.prepayDetail(prepayId)).toMatchObject({ status: 'finish' });
    const refused = await client.call('POST', '/submerchant-pay/pay', { body: { prepayId: await newOrder(), way: 'codePay', authCode: '981234567890123456' } });
    expect(refused.httpStatus).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_request', msg: expect.stringContaining("Acme Pay's: 18 digits starting 99") });
  });

  test('its way is in this service’s /openapi.json; an unknown way is refused naming `way`; 4.7 takes its channel with its own parameters only', async () => {
    const doc = (await (await fetch(`${kit.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        {
          post?: {
            summary?: string;
            parameters?: { name: string; schema: { enum?: string[] } }[];
            requestBody?: { content: Record<string, { schema: Record<'oneOf' | 'anyOf', { title?: string }[]> }> };
          };
        }
      >;
    };
    // Its realm takes notifications, as the service serves them.
    const realm = doc.paths['/pay-notify/{realm}/pay'].post!.parameters!.find((p) => p.name === 'realm')!.schema.enum;
    expect(realm).toEqual(expect.arrayContaining(['social', 'alipay', 'acme']));
    expect(doc.paths['/submerchant-pay/acmeNative']?.post?.summary).toBe('Acme Pay scan-code payment arguments (render `args.qr` as a QR code)');
    const schema = doc.paths['/submerchant-pay/pay'].post!.requestBody!.content['application/json'].schema;
    const members = (schema.oneOf ?? schema.anyOf).map((m) => m.title);
    expect(members).toEqual(expect.arrayContaining(['socialPayNative', 'alipayNative', 'acmeNative', 'codePay']));

    const unknown = await client.call('POST', '/submerchant-pay/pay', { body: { prepayId: await newOrder(), way: 'acmeMini' } });
    expect(unknown.httpStatus).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'invalid_request', msg: expect.stringMatching(/^body: way: .*'acmeNative' \| 'codePay'$/) });

    const wrong = await client.call('PUT', '/merchant/paymentParams', {
      body: { id: shop.parentId, paymentChannel: 'Acme', parameters: { socialAppId: 'wx1' } },
    });
    expect(wrong.httpStatus).toBe(400);
    expect(wrong.body).toMatchObject({ error: 'invalid_request', msg: expect.stringContaining('socialAppId') });
  });
});
