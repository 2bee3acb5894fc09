/**
 * One payment across every part of the kit, as it happens at a counter:
 * the POS display (Chromium) creates an order and shows its code → the test decodes the QR from a
 * screenshot → a phone (another Chromium page) opens the mini-program's H5 build with that link →
 * pays through the sandbox cashier → the phone shows success, the POS display shows "paid", and the
 * merchant's own receiver gets a `finish` callback whose signature it verified with the shared
 * `callbackHandler`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { callbackHandler } from '@kit/shared/callback';
import { parseScene } from '@kit/shared/scene';
import type { CallbackEvent } from '@kit/shared/api/payment';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { payFixture, type PayFixture } from '../../server/test/support/payments';
import { SOCIAL_APP_UA, decodeQr, launchChromium, watchConsole } from '../browser/chromium';
import { ensurePosBuilt, login, typeAmount } from '../browser/pos-support';
import { ensureMpBuilt, expectState, textOf } from '../browser/mp-support';
import { waitFor } from '../../server/test/support/wait';

jest.setTimeout(240_000);

/** The merchant's backend: one route receiving the kit's callbacks through the shared verifier. */
async function startMerchantReceiver(creds: { appId: string; appSecret: string }) {
  const events: CallbackEvent[] = [];
  const answers: number[] = [];
  const handle = callbackHandler({ appId: creds.appId, appSecret: creds.appSecret, onEvent: (e) => void events.push(e) });
  const server = http.createServer((req, res) => {
    res.on('finish', () => answers.push(res.statusCode));
    if (req.method === 'POST' && req.url?.startsWith('/kit-callback')) return void handle(req, res);
    res.statusCode = 404;
    res.end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/kit-callback?shop=corner`,
    events,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a payment across POS display, mini-program, service, sandbox and merchant callback', () => {
  const backend = backends()[0];
  let browser: Browser;
  let kit: TestKit;
  let f: PayFixture;
  let receiver: Awaited<ReturnType<typeof startMerchantReceiver>>;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ensurePosBuilt();
    ensureMpBuilt();
    browser = await launchChromium();
    kit = await startTestKit(backend, { WAIT_FOR_FINISH_HOLD: '10s' });
    f = await payFixture(kit);
    receiver = await startMerchantReceiver(f);
    // 4.7 on the sub-merchant: its own callback URL; the channel fields are inherited from the parent.
    await f.client.setPaymentParams(f.subId, 'SocialNative', { notifyCallbackUrl: receiver.url });
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await receiver?.close();
    await kit?.close();
    await backend.cleanup();
  });

  it('pays the code the POS display shows and every party sees the payment', async () => {
    // The counter: log in, charge 36.90, show the mini-program code.
    const counter = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    contexts.push(counter);
    const pos = await counter.newPage();
    const posProblems = watchConsole(pos);
    await login(pos, kit.url, f.subId, f.pw);
    await typeAmount(pos, '36.90');
    await pos.getByTestId('charge-submit').click();
    await pos.getByTestId('pay-qr').waitFor();

    // The phone scans the code shown first, the one for any wallet: the QR is decoded from a screenshot of the display.
    const prepayId = /#\/pay\/([0-9A-Za-z]+)$/.exec(pos.url())![1];
    const link = await decodeQr(pos.getByTestId('pay-qr'));
    expect(link).toBe(`${kit.url}/p/${prepayId}`);

    // The social app's browser: the link leads to the payer page of the order.
    const handset = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
      isMobile: true,
      hasTouch: true,
      userAgent: SOCIAL_APP_UA,
    });
    contexts.push(handset);
    const phone = await handset.newPage();
    // The sandbox cashier page has no icon, so Chromium's /favicon.ico probe gets a 404: not a fault.
    const phoneProblems: string[] = [];
    phone.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) phoneProblems.push(`${m.text()} (${m.location().url})`);
    });
    phone.on('pageerror', (e) => phoneProblems.push(`pageerror: ${e.message}`));
    await phone.goto(link);
    expect(parseScene(new URL(phone.url().replace('#', '')).searchParams.get('scene'))).toBe(prepayId);
    await expectState(phone, 'ready');
    expect(await textOf(phone, 'mp-merchant')).toBe('Corner Shop');
    expect(await textOf(phone, 'mp-amount')).toBe('¥36.90');

    // Pay: the H5 build hands the 4.4 arguments to the sandbox cashier, which comes back with the result.
    await phone.getByTestId('mp-pay').click();
    await phone.waitForURL(/\/sandbox\/cashier\?/);
    expect(await phone.locator('#sandbox-amount').textContent()).toBe('¥36.90');
    await phone.locator('#sandbox-pay').click();
    await phone.waitForURL(/sandboxResult=paid/);

    // The phone shows success …
    await expectState(phone, 'success', 20_000);
    expect(await textOf(phone, 'mp-status')).toBe('Payment successful');
    // … the counter shows "paid" …
    await pos.waitForFunction(() => document.querySelector('[data-testid="order-status"]')?.getAttribute('data-status') === 'finish', null, {
      timeout: 20_000,
    });
    expect(await textOf(pos, 'order-status')).toMatch(/^Paid/);
    expect(await pos.getByTestId('pay-qr').count()).toBe(0);
    // … and the merchant's receiver got a verified `finish` callback for this order.
    const event = await waitFor(() => receiver.events.find((e) => e.prepayId === prepayId && e.status === 'finish'), 'the finish callback');
    expect(event).toMatchObject({ prepayId, status: 'finish', subMerchantId: f.subId, merchantId: f.parentId });
    expect(Math.abs(Date.parse(event.notifyTime) - Date.now())).toBeLessThan(180_000);
    // Every callback the receiver answered passed verification (no 401/400 refusals).
    expect(receiver.answers.every((s) => s === 200)).toBe(true);

    // The service agrees.
    expect(await f.client.prepayDetail(prepayId!)).toMatchObject({ status: 'finish', totalAmount: '36.90' });
    expect(posProblems).toEqual([]);
    expect(phoneProblems).toEqual([]);
  });
});
