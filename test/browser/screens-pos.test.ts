/**
 * Tests that look, the POS display: every screen at 1280×800, 1024×768 and 800×1280, in Chinese and
 * English, with the largest amount, against a real service and its sandbox in Debian Chromium. Each
 * screen is measured (`look.ts`: no horizontal overflow, no wrapped or clipped button, amount or
 * chip, primary buttons with text contrast ≥ 4.5:1, no action below the fold) and saved as a PNG in
 * the folder this test prints. The payer page's screens: `screens-payer.test.ts`.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestKit } from '../../server/test/support/kit';
import { sandboxPost, type PayFixture } from '../../server/test/support/payments';
import { i2c, settle, upload } from '../../server/test/api/chain-helpers';
import { decodeQr, watchConsole } from './chromium';
import { ensurePosBuilt } from './pos-support';
import { look, type LookOptions, type Problem } from './look';
import { LANGS, LARGEST, PARTNER, expectNoProblems, label, startScreens, type ScreensRig } from './screens-support';

jest.setTimeout(300_000);

const POS_SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
  { width: 800, height: 1280 },
];

const POS_LOOK: LookOptions = {
  oneLine: 'button, .money, .chip, .chip-big, .countdown, .paid-at, .amount-entry',
  primary: 'button.primary, button.danger',
  scrollAreas: '[data-scroll-list]',
  actionsInView: true,
};

let rig: ScreensRig;
let browser: Browser;
let kit: TestKit;
let f: PayFixture;

beforeAll(async () => {
  ensurePosBuilt();
  rig = await startScreens('pos-', { SANDBOX_REFUND_DELAY: '8s', WAIT_FOR_FINISH_HOLD: '3s', POS_POINTS_SESSION_TTL: '15s' });
  ({ browser, kit, f } = rig);
});
afterAll(() => rig?.close());

describe('the looking itself', () => {
  it('catches a page wider than the screen, wrapped or clipped buttons and amounts, low contrast and actions below the fold', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 667 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.setContent(`<!doctype html><html><body style="margin:0;font:16px sans-serif">
      <button class="primary" id="pale" style="background:#07c160;color:rgba(255,255,255,.6);white-space:nowrap">Pay</button>
      <button class="primary" id="narrow" style="width:60px;background:#067a43;color:#fff">Show deduction code</button>
      <div style="width:200px;overflow:hidden"><span class="money" style="display:inline-block;white-space:nowrap;font-size:40px">¥1,000,000.00</span></div>
      <div style="width:900px">wide</div>
      <button class="primary" style="position:absolute;top:900px;background:#067a43;color:#fff">Later</button>
    </body></html>`);
    const found = (await look(page, 'self-test', { oneLine: 'button, .money', primary: 'button.primary', actionsInView: true, save: false })).map(
      (p) => p.what,
    );
    await context.close();
    const expectOne = (re: RegExp) => expect(found.filter((w) => re.test(w))).not.toHaveLength(0);
    expectOne(/the page is \d+px wide on a 375px screen/);
    expectOne(/#pale|"Pay" has text contrast [0-9.]+:1/);
    expectOne(/"Show deduction code" wraps onto [2-9] lines/);
    expectOne(/"¥1,000,000.00" is cut off/);
    expectOne(/"Later" is below the fold/);
    expect(found.some((w) => /"Pay" wraps/.test(w))).toBe(false);
  });
});

describe('POS display screens', () => {
  let context: BrowserContext;
  let page: Page;
  let consoleProblems: string[];
  const problems: Problem[] = [];

  beforeAll(async () => {
    context = await browser.newContext({ viewport: POS_SIZES[0], deviceScaleFactor: 1 });
    page = await context.newPage();
    consoleProblems = watchConsole(page);
  });
  afterAll(() => context?.close());

  /** The current screen in both languages (the header switch) at every size. */
  async function screens(name: string): Promise<void> {
    for (const lang of LANGS) {
      // dispatchEvent: an open dialog's backdrop covers the header, as it should for a person.
      await page.getByTestId(`lang-${lang}`).first().dispatchEvent('click');
      await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      for (const size of POS_SIZES) {
        await page.setViewportSize(size);
        problems.push(...(await look(page, `pos-${name}-${lang}-${label(size)}`, POS_LOOK)));
      }
    }
    await page.setViewportSize(POS_SIZES[0]);
    await page.getByTestId('lang-en').first().dispatchEvent('click');
  }

  async function newSale(amount: string): Promise<string> {
    await page.getByTestId('tab-charge').click();
    await page
      .getByTestId('key-clear')
      .click()
      .catch(() => undefined);
    for (const ch of amount) await page.getByTestId(`key-${ch}`).click();
    await page.getByTestId('charge-submit').click();
    await page.getByTestId('pay-qr').waitFor();
    return /#\/pay\/([0-9A-Za-z]+)$/.exec(page.url())![1];
  }

  async function payShown(): Promise<void> {
    await page.getByTestId('view-scancode').click();
    const codeUrl = await decodeQr(page.getByTestId('pay-qr'));
    expect((await sandboxPost(kit.url, '/pay', { codeUrl })).status).toBe(200);
    await page.locator('[data-testid="order-status"][data-status="finish"]').waitFor();
  }

  const ids: Record<string, string> = {};

  it('login, amount entry and the payment code', async () => {
    await page.goto(`${kit.url}/pos/`);
    await page.getByTestId('login-user').waitFor();
    await screens('login');
    await page.getByTestId('login-user').fill(f.parentId);
    await page.getByTestId('login-pw').fill(f.pw);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('login-message').waitFor();
    expect(await page.getByTestId('login-message').textContent()).toMatch(/^This is a parent merchant id\./);
    await screens('login-parent-merchant');

    await page.getByTestId('login-user').fill(f.subId);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('shop-name').waitFor();
    await screens('charge-idle');
    expect(await page.getByTestId('amount-message').getAttribute('data-tone')).toBe('hint');
    for (const ch of '1000000.01') await page.getByTestId(`key-${ch}`).click();
    expect(await page.getByTestId('amount-message').getAttribute('data-tone')).toBe('error');
    await screens('charge-above-largest');
    await page.getByTestId('key-back').click();
    await page.getByTestId('key-0').click();
    expect(await page.getByTestId('amount-entry').textContent()).toBe('¥1,000,000.00');
    await screens('charge-largest');

    ids.paid = await newSale(LARGEST);
    expect(await page.getByTestId('pay-amount').textContent()).toBe('¥1,000,000.00');
    await screens('pay-any-wallet');
    await page.getByTestId('view-miniprogram').click();
    await screens('pay-miniprogram-code');
    await page.getByTestId('view-scancode').click();
    await screens('pay-scan-code');
    await context.setOffline(true);
    await page.getByTestId('pay-network').waitFor({ timeout: 30_000 });
    await screens('pay-offline');
    await context.setOffline(false);
    await page.getByTestId('pay-network').waitFor({ state: 'detached', timeout: 30_000 });
    await payShown();
    await screens('pay-paid');

    ids.expired = await newSale(LARGEST);
    await kit.runtime.services.prepay.expire(ids.expired);
    await page.locator('[data-testid="order-status"][data-status="cancel"]').waitFor();
    await screens('pay-expired');

    ids.toRefund = await newSale(LARGEST);
    await payShown();
    ids.refunding = await newSale('999999.99');
    await payShown();
    ids.active = await newSale(LARGEST);
    expectNoProblems(problems.splice(0));
  });

  it('today’s orders, the refund dialog, and a refunded order', async () => {
    // The largest order shared to its limit (30 %), in one split that finishes its sharing.
    const split = {
      prepayId: ids.paid,
      outOrderNo: 'screens1',
      receivers: [{ type: PARTNER.type, account: PARTNER.account, amount: '300000.00', description: 'partner share' }],
      finish: true,
    };
    await f.client.shareProfit(split);
    await f.client.waitForProfitSharing(ids.paid, split.outOrderNo, { intervalMs: 200, timeoutMs: 30_000 });
    await page.getByTestId('tab-orders').click();
    await page.getByTestId(`order-sharing-${ids.paid}`).waitFor();
    expect(await page.getByTestId(`order-sharing-${ids.paid}`).textContent()).toBe('Sharing done: ¥300,000.00');
    expect(await page.getByTestId(`order-sharing-${ids.toRefund}`).textContent()).toBe('Shared ¥0.00 of ¥300,000.00');
    expect(await page.getByTestId(`order-sharing-${ids.active}`).count()).toBe(0);
    await page.getByTestId(`refund-${ids.toRefund}`).click();
    await page.getByTestId('refund-dialog').waitFor();
    expect(await page.getByTestId('refund-amount').textContent()).toBe('¥1,000,000.00');
    await screens('orders-refund-dialog');
    await page.getByTestId('refund-confirm').click();
    await page.locator(`[data-testid="order-status-${ids.toRefund}"][data-status="refunded"]`).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId(`order-sharing-${ids.toRefund}`).count()).toBe(0); // refunded before any share

    await page.getByTestId(`refund-${ids.refunding}`).click();
    await page.getByTestId('refund-confirm').click();
    await page.locator(`[data-testid="order-status-${ids.refunding}"][data-status="refunding"]`).waitFor();
    expect(await page.getByTestId(`order-status-${ids.refunding}`).textContent()).toBe('Refunding…');
    await screens('orders');
    // The platform completes the refund SANDBOX_REFUND_DELAY later, on the service's clock.
    await kit.advance('8s');
    await page.locator(`[data-testid="order-status-${ids.refunding}"][data-status="refunded"]`).waitFor({ timeout: 30_000 });
    await page.getByTestId('orders-notice').waitFor();
    await screens('orders-refund-notice');

    await page.goto(`${kit.url}/pos/#/pay/${ids.toRefund}`);
    await page.locator('[data-testid="order-status"][data-status="refunded"]').waitFor();
    await screens('pay-refunded');
    expectNoProblems(problems.splice(0));
  });

  it('points: the form, a maximum above the balance, the running code, an ended and a finished session', async () => {
    expect((await upload(f.client, [{ type: 'points.create', args: { id: 'type-pts', tokenId: 'PTS', name: 'Shop points' } }])).body.status).toBe('pending');
    await settle(f.client, [i2c('points.create', 'type-pts')]);
    expect(
      (
        await upload(f.client, [
          { type: 'points.issue', args: { id: 'issue-alice', tokenId: 'PTS', userAppId: f.appId, userId: 'alice', amount: '1000000000' } },
        ])
      ).body.status,
    ).toBe('pending');
    expect((await settle(f.client, [i2c('points.issue', 'issue-alice')]))[0].id).not.toBe('');

    await page.getByTestId('tab-points').click();
    await page.getByTestId('points-user').waitFor();
    await screens('points-form');
    await page.getByTestId('points-user').fill('alice');
    await page.getByTestId('points-token').fill('PTS');
    await page.getByTestId('points-max').fill('2000000000');
    await page.getByTestId('points-check').click();
    await page.getByTestId('points-over-balance').waitFor();
    expect(await page.getByTestId('points-form-balance').textContent()).toBe('Balance: 1,000,000,000\u00a0points');
    // Every message at once: the balance, the warning about the maximum, and a failure.
    await context.setOffline(true);
    await page.getByTestId('points-start').click();
    await page.getByTestId('points-error').waitFor();
    await context.setOffline(false);
    await screens('points-form-messages');

    await page.getByTestId('points-start').click();
    await page.getByTestId('points-qr').waitFor();
    await page.getByTestId('points-over-balance').waitFor();
    await screens('points-running');
    // The session (15 s here, on the service's clock) runs out: the display says so at its next code.
    await kit.advance('15s');
    await page.getByTestId('points-ended').waitFor({ timeout: 30_000 });
    await screens('points-ended');

    await page.getByTestId('points-next').click();
    // The next customer starts blank (the point type stays): they scan their member code.
    expect(await page.getByTestId('points-token').inputValue()).toBe('PTS');
    await page.getByTestId('points-user').fill('alice');
    await page.getByTestId('points-max').fill('12.5');
    await page.getByTestId('points-start').click();
    await page.getByTestId('points-qr').waitFor();
    const code = await decodeQr(page.getByTestId('points-qr'));
    expect((await upload(f.client, [{ type: 'chainPay', args: { id: 'pay-1', code, amount: '12.5' } }])).body.status).toBe('pending');
    await settle(f.client, [i2c('chainPay', 'pay-1')], 10_000);
    await page.getByTestId('points-done').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('points-before').textContent()).toBe('1,000,000,000\u00a0points');
    expect(await page.getByTestId('points-after').textContent()).toBe('999,999,987.50000\u00a0points');
    await screens('points-done');
    expectNoProblems(problems.splice(0));
  });

  it('opens in Chinese with ?lang=zh-CN and logged no console errors', async () => {
    await page.goto(`${kit.url}/pos/?lang=zh-CN#/orders`);
    await page.getByTestId('tab-orders').waitFor();
    expect(await page.getByTestId('tab-orders').textContent()).toBe('今日订单');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    // Provoked on purpose: the refused parent-merchant login (403), the ended points session (400), the offline spells.
    expect(
      consoleProblems.filter((p) => !/Failed to load resource: (the server responded with a status of (403|400)|net::ERR_INTERNET_DISCONNECTED)/.test(p)),
    ).toEqual([]);
  });
});
