/**
 * A wallet registered with the composition root, at the counter (docs/architecture.md, "Adding a
 * wallet"): the test-only Acme Pay (`server/test/support/test-wallet/`) is in no file of the product,
 * yet the POS in Chromium takes it through the way every wallet takes part in, the payer's payment
 * code (7.4, "Scan the payer's code"): the code's digits name Acme Pay, the display turns paid, the
 * day's orders list the payment under Acme Pay's channel, and the cashier refunds it there, which
 * Acme Pay completes with its notification. The display names the channel as the service gives it
 * (its own words are the kit's wallets', built into it).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TestClock } from '@kit/shared/test-clock';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { startReceiver } from '../../server/test/support/payments';
import { WITH_ACME, acmeWallet, startAcmeStandIn, type AcmeStandIn } from '../../server/test/support/test-wallet';
import { waitFor } from '../../server/test/support/wait';
import { KitClient, verifyCallback } from '@kit/shared';
import { launchChromium, watchConsole } from './chromium';
import { counterContext, ensurePosBuilt, login, typeAmount } from './pos-support';

const backend = backends()[0];
const KEY = 'acme-api-key-for-the-pos-01';

let browser: Browser;
let kit: TestKit;
let acmePay: AcmeStandIn;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let context: BrowserContext;
let page: Page;
let problems: string[];
let shop: { subId: string; pw: string; appSecret: string; client: KitClient<typeof acmeWallet> };

beforeAll(async () => {
  ensurePosBuilt();
  browser = await launchChromium();
  const clock = new TestClock();
  acmePay = await startAcmeStandIn(KEY, () => clock.now());
  receiver = await startReceiver();
  kit = await startTestKit(backend, { ACME_GATEWAY_URL: acmePay.url, ACME_API_KEY: KEY }, { clock, providers: WITH_ACME });
  const app = await kit.newApp();
  const client = new KitClient({ baseUrl: kit.url, appId: app.appId, appSecret: app.appSecret, clock, wallets: [acmeWallet] });
  const pw = 'correct horse battery';
  const parent = await client.createMerchant({ type: 'merchant', parameters: { displayName: 'Acme Parent', pw, appId: app.appId } });
  const sub = await client.createMerchant({
    type: 'subMerchant',
    parameters: { displayName: 'Acme Counter', pw, appId: app.appId, parentMerchantId: parent.data.id },
  });
  // The shop takes Acme Pay only: its parameters are the one channel it has.
  await client.setPaymentParams(parent.data.id, 'Acme', { acmeMerchantId: 'acme-counter-1', notifyCallbackUrl: `${receiver.url}/cb` });
  shop = { subId: sub.data.id, pw, appSecret: app.appSecret, client };
  context = await counterContext(browser);
  page = await context.newPage();
  problems = watchConsole(page);
  await login(page, kit.url, shop.subId, shop.pw);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await kit?.close();
  await acmePay?.close();
  await receiver?.close();
  await backend.cleanup();
});

test("an Acme Pay code scanned at the counter pays; the day's orders list it; the cashier refunds it and Acme Pay completes the refund", async () => {
  await typeAmount(page, '12.30');
  await page.getByTestId('charge-submit').click();
  await page.getByTestId('view-payercode').click();
  await page.getByTestId('payer-code-input').pressSequentially('991122334455667788', { delay: 5 });
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="order-status"][data-status="finish"]').waitFor();
  expect(await page.getByTestId('pay-wallet').getAttribute('data-channel')).toBe('Acme');
  // The display's route names the order (`#/pay/<prepayId>`).
  const prepayId = /#\/pay\/([0-9A-Za-z]+)$/.exec(page.url())![1];
  expect(await shop.client.prepayDetail(prepayId)).toMatchObject({ status: 'finish', totalAmount: '12.30' });
  expect(acmePay.calls.some((c) => c.startsWith('/v1/charges '))).toBe(true);

  await page.getByTestId('tab-orders').click();
  await page.getByTestId(`order-${prepayId}`).waitFor();
  expect(await page.getByTestId(`order-wallet-${prepayId}`).getAttribute('data-channel')).toBe('Acme');
  await page.getByTestId(`refund-${prepayId}`).click();
  await page.getByTestId('refund-confirm').click();
  const refund = await waitFor(async () => (await kit.runtime.services.payments.state(prepayId)).refund ?? undefined, 'the refund the POS asked for');
  await waitFor(() => acmePay.refund(refund.out_refund_no), 'Acme Pay holding the refund');
  expect((await acmePay.completeRefund(refund.out_refund_no)).status).toBe(200);
  await page.getByTestId('orders-reload').click();
  await page.locator(`[data-testid="order-status-${prepayId}"][data-status="refunded"]`).waitFor();

  const statuses = await waitFor(() => {
    const mine = receiver.received.map((r) => verifyCallback({ url: r.url, rawBody: r.body }, shop.appSecret)).filter((e) => e.prepayId === prepayId);
    return mine.length === 2 ? mine.map((e) => e.status) : undefined;
  }, 'the finish and refunded callbacks');
  expect(statuses).toEqual(['finish', 'refunded']);
  expect(problems).toEqual([]);
});
