/**
 * The POS's one code for any wallet (design 6.3) in Debian Chromium against a real service and its
 * sandbox: the display shows it first; the link it holds, opened by a phone whose browser is the
 * social app's, pays as today's payer page does; opened in Alipay's browser, pays through Alipay's
 * payment page (the sandbox's Alipay cashier) and the display says "Paid with Alipay"; opened in any
 * other browser, says in both languages to scan with either app.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { payFixture, type PayFixture } from '../../server/test/support/payments';
import { ALIPAY_UA, SOCIAL_APP_UA as SOCIAL_UA, decodeQr, launchChromium, watchConsole } from './chromium';
import { counterContext, ensurePosBuilt, login, typeAmount } from './pos-support';
import { ensureMpBuilt, expectState } from './mp-support';
import { look, type LookOptions } from './look';
import { waitFor } from '../../server/test/support/wait';

jest.setTimeout(120_000);

/** The payer page measured as its screens test does (`screens-payer.test.ts`): amounts and chips on one line, the primary button readable and in view. */
const PAYER_LOOK: LookOptions = { oneLine: '.btn, .money, .chip, [data-one-line]', primary: '.btn--primary', actionsInView: true, save: false };

/** How often the payer page of a second payment reads the order again while its refund is under way (its own timer). */
const SECOND_REFRESH_MS = 3_000;

/** Where the screenshots of the new screens go (looked at by a person, not compared). */
const SHOTS = process.env.KIT_SCREENSHOTS_DIR;

let browser: Browser;
const backend = backends()[0];

beforeAll(async () => {
  ensurePosBuilt();
  ensureMpBuilt();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await backend.cleanup();
});

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

describe('the one code for any wallet, in Chromium', () => {
  let kit: TestKit;
  let f: PayFixture;
  let counter: BrowserContext;
  let pos: Page;
  let problems: string[];

  beforeAll(async () => {
    kit = await startTestKit(backend, { WAIT_FOR_FINISH_HOLD: '5s' });
    f = await payFixture(kit);
    // The demo shop takes both wallets: Alipay's parameters beside the social app's.
    await f.client.setPaymentParams(f.parentId, 'Alipay', { appAuthToken: 'appAuthToken_browser_01' });
    counter = await counterContext(browser);
    pos = await counter.newPage();
    problems = watchConsole(pos);
    await login(pos, kit.url, f.subId, f.pw);
  });
  afterAll(async () => {
    await counter?.close();
    await kit?.close();
  });

  /** Charges `amount` and answers the order's id and the link the first code holds. */
  async function charge(amount: string): Promise<{ id: string; link: string }> {
    await pos.getByTestId('tab-charge').click();
    // The amount of the last charge, if the keypad kept one (the key is disabled on an empty amount).
    const clear = pos.getByTestId('key-clear');
    await clear.waitFor();
    if (await clear.isEnabled()) await clear.click();
    expect(await clear.isDisabled()).toBe(true);
    await typeAmount(pos, amount);
    await pos.getByTestId('charge-submit').click();
    await pos.getByTestId('pay-qr').waitFor();
    const id = /#\/pay\/([0-9A-Za-z]+)$/.exec(pos.url())![1];
    expect(await pos.getByTestId('view-anywallet').getAttribute('aria-selected')).toBe('true');
    return { id, link: await decodeQr(pos.getByTestId('pay-qr')) };
  }

  async function phone(userAgent?: string, locale = 'en-US'): Promise<BrowserContext> {
    return browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale, ...(userAgent ? { userAgent } : {}) });
  }

  const shownPaid = (channel: string) =>
    pos.locator(`[data-testid="order-status"][data-status="finish"] ~ [data-testid="pay-wallet"][data-channel="${channel}"]`).waitFor({ timeout: 15_000 });

  it('shows the code for any wallet first: the short payer link of the order, with its hint in both languages', async () => {
    const { id, link } = await charge('9.90');
    expect(link).toBe(`${kit.url}/p/${id}`);
    expect(await pos.locator('.scan-hint').textContent()).toBe('Scan with the social app or Alipay to pay');
    await shot(pos, 'pos-any-wallet-en');
    await pos.getByTestId('lang-zh-CN').first().click();
    expect(await pos.locator('.scan-hint').textContent()).toBe('请用社交应用或支付宝扫码付款');
    await shot(pos, 'pos-any-wallet-zh');
    await pos.getByTestId('lang-en').first().click();
  });

  it('tells an ordinary browser, in both languages, to scan with either app', async () => {
    const { id, link } = await charge('1.20');
    for (const locale of ['en-US', 'zh-CN']) {
      const ctx = await phone(undefined, locale);
      try {
        const page = await ctx.newPage();
        const pageProblems = watchConsole(page);
        await page.goto(link);
        expect(page.url()).toBe(link);
        const blocks = page.locator('[data-lang-block]');
        expect(await blocks.count()).toBe(2);
        // The browser's language first, the other one after it.
        expect(await blocks.first().getAttribute('data-lang-block')).toBe(locale === 'en-US' ? 'en' : 'zh-CN');
        expect(await page.locator('[data-lang-block="en"] [data-testid="scan-with-app"]').textContent()).toBe(
          'Scan this code with the social app or with Alipay to pay.',
        );
        expect(await page.locator('[data-lang-block="zh-CN"] [data-testid="scan-with-app"]').textContent()).toBe('请用社交应用或支付宝扫码付款。');
        expect(await page.textContent('body')).toContain(id);
        await shot(page, `scan-with-either-app-${locale}`);
        expect(pageProblems).toEqual([]);
      } finally {
        await ctx.close();
      }
    }
    await expectStillWaiting();
  });

  async function expectStillWaiting() {
    expect(await pos.getByTestId('order-status').getAttribute('data-status')).toBe('active');
  }

  it("in the social app's browser, opens today's payer page, which pays at the sandbox; the display names the wallet", async () => {
    const { id, link } = await charge('6.60');
    const ctx = await phone(SOCIAL_UA);
    try {
      const payer = await ctx.newPage();
      await payer.goto(link);
      await payer.waitForURL(/\/mp\/#\/pages\/pay\/index\?scene=/);
      await expectState(payer, 'ready');
      await payer.getByTestId('mp-pay').click();
      // As today: the social payment, played by the sandbox's cashier.
      await payer.waitForURL(/\/sandbox\/cashier\?/);
      await payer.locator('#sandbox-pay').click();
      await payer.waitForURL(/sandboxResult=paid/);
      await expectState(payer, 'success');
    } finally {
      await ctx.close();
    }
    await shownPaid('SocialNative');
    expect(await pos.getByTestId('pay-wallet').textContent()).toBe('Paid with the social app');
    const state = await kit.runtime.services.payments.state(id);
    // Paid once, through the social app (the display's scan-code order stays unpaid).
    expect(state.channelOrders.filter((c) => c.state === 'paid').map((c) => c.channel)).toEqual(['SocialNative']);
  });

  it('in Alipay\'s browser, pays through Alipay\'s payment page and comes back; the display says "Paid with Alipay"', async () => {
    const { id, link } = await charge('8.80');
    const ctx = await phone(ALIPAY_UA, 'zh-CN');
    try {
      const payer = await ctx.newPage();
      const payerProblems = watchConsole(payer);
      await payer.goto(link);
      await payer.waitForURL(/\/mp\/#\/pages\/pay\/index\?scene=/);
      await expectState(payer, 'ready');
      await payer.getByTestId('mp-pay').click();
      // The signed wap-pay URL: the sandbox's Alipay gateway shows its cashier page.
      await payer.waitForURL(/\/sandbox\/alipay\/gateway\.do\?/);
      // Alipay's page names the order by the number the display shows (the request's merchant_order_no).
      expect(await pos.locator('.order-ref').textContent()).toBe(`Order ${id}`);
      expect(await payer.locator('#alipay-order').textContent()).toBe(`订单 ${id}`);
      await shot(payer, 'alipay-cashier-zh');
      await payer.locator('#alipay-pay').click();
      // Back on the payer page, marked as a return, which waits for the order to be paid.
      await payer.waitForURL(/alipayReturn=1/);
      await expectState(payer, 'success');
      await shot(payer, 'payer-page-paid-in-alipay');
      expect(payerProblems).toEqual([]);
    } finally {
      await ctx.close();
    }
    await shownPaid('Alipay');
    expect(await pos.getByTestId('pay-wallet').textContent()).toBe('Paid with Alipay');
    await shot(pos, 'pos-paid-with-alipay-en');
    await pos.getByTestId('lang-zh-CN').first().click();
    expect(await pos.getByTestId('pay-wallet').textContent()).toBe('支付宝已付款');
    await shot(pos, 'pos-paid-with-alipay-zh');
    await pos.getByTestId('lang-en').first().click();
    // Today's list names the wallet too.
    await pos.getByTestId('tab-orders').click();
    await pos.getByTestId(`order-wallet-${id}`).waitFor();
    expect(await pos.getByTestId(`order-wallet-${id}`).textContent()).toBe('Alipay');
    const state = await kit.runtime.services.payments.state(id);
    expect(state.channelOrders.filter((c) => c.state === 'paid').map((c) => c.channel)).toEqual(['Alipay']);
  });

  it('paid twice (two phones, both wallets): the payer whose payment came second is told it is refunded automatically, in both languages', async () => {
    const { id, link } = await charge('7.70');
    const alipayPhone = await phone(ALIPAY_UA, 'zh-CN');
    const socialPhone = await phone(SOCIAL_UA);
    try {
      // The first payer opens Alipay's payment page and waits there...
      const second = await alipayPhone.newPage();
      // The page's timers (it reads the order again while the refund is under way) on a clock the test runs.
      await second.clock.install();
      const secondProblems = watchConsole(second);
      await second.goto(link);
      await expectState(second, 'ready');
      await second.getByTestId('mp-pay').click();
      await second.waitForURL(/\/sandbox\/alipay\/gateway\.do\?/);
      // ...while another phone pays the same order through the social app.
      const first = await socialPhone.newPage();
      await first.goto(link);
      await expectState(first, 'ready');
      await first.getByTestId('mp-pay').click();
      await first.waitForURL(/\/sandbox\/cashier\?/);
      await first.locator('#sandbox-pay').click();
      await expectState(first, 'success');
      await shownPaid('SocialNative');

      // Then Alipay takes the waiting payer's money too: the page says it is a second payment, refunded automatically.
      await second.locator('#alipay-pay').click();
      await second.waitForURL(/alipayReturn=1/);
      await expectState(second, 'paidTwice');
      expect(await second.getByTestId('mp-detail').textContent()).toContain('通过社交应用支付，早于您的这笔付款。您的付款将自动退回原支付账户');
      // The service refunds the second payment (Alipay's stand-in refunds at once); the page shows it at its next
      // reading of the order, which the test brings by running the page's clock.
      await waitFor(async () => (await kit.runtime.services.payments.state(id)).duplicates[0]?.state === 'success', 'the second payment refunded');
      await second.clock.runFor(SECOND_REFRESH_MS);
      await second.locator('[data-testid="mp-second-payment"][data-refund="refunded"]').waitFor();
      expect(await second.getByTestId('mp-second-payment').textContent()).toBe('通过支付宝的重复付款 ¥7.70：已自动退款。');
      await shot(second, 'payer-page-paid-twice-zh');
      expect(await look(second, 'payer-page-paid-twice-zh', PAYER_LOOK)).toEqual([]);
      // The same page in English.
      await second.goto(`${second.url()}&lang=en`);
      await expectState(second, 'paidTwice');
      expect(await second.getByTestId('mp-status').textContent()).toBe('This order was already paid');
      expect(await second.getByTestId('mp-detail').textContent()).toContain('It was paid with the social app at ');
      expect(await second.getByTestId('mp-detail').textContent()).toContain('Your payment is refunded to you automatically: there is nothing to do.');
      expect(await second.getByTestId('mp-second-payment').textContent()).toBe('Second payment of ¥7.70 with Alipay: refunded automatically.');
      await shot(second, 'payer-page-paid-twice-en');
      expect(await look(second, 'payer-page-paid-twice-en', PAYER_LOOK)).toEqual([]);
      expect(secondProblems).toEqual([]);
    } finally {
      await alipayPhone.close();
      await socialPhone.close();
    }
    // Paid once, through the social app; the Alipay payment refunded in full.
    const state = await kit.runtime.services.payments.state(id);
    expect(state.duplicates).toMatchObject([{ channel: 'Alipay', refund_cents: 770, state: 'success' }]);
    expect(await pos.getByTestId('pay-wallet').textContent()).toBe('Paid with the social app');
  });

  it('left nothing on the console of the display', () => {
    expect(problems).toEqual([]);
  });
});
