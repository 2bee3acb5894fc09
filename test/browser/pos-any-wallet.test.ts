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

jest.setTimeout(120_000);

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
    await pos
      .getByTestId('key-clear')
      .click()
      .catch(() => undefined);
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

  it('left nothing on the console of the display', () => {
    expect(problems).toEqual([]);
  });
});
