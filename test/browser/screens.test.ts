/**
 * Tests that look: every screen of the POS display (1280×800, 1024×768, 800×1280) and of the payer
 * page (375×667, 390×844), in Chinese and English, with the largest amount, against a real service
 * and its sandbox in Debian Chromium. Each screen is measured (`look.ts`: no horizontal overflow, no
 * wrapped or clipped button, amount or chip, primary buttons with text contrast ≥ 4.5:1, no action
 * below the fold) and saved as a PNG in the folder this test prints.
 */
import { execFileSync } from 'node:child_process';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { buildScene } from '@kit/shared/scene';
import type { Lang } from '@kit/shared/i18n';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { payApi, payFixture, sandboxPost, type PayFixture } from '../../server/test/support/payments';
import { i2c, settle, upload } from '../../server/test/api/chain-helpers';
import { decodeQr, launchChromium, watchConsole } from './chromium';
import { ensurePosBuilt } from './pos-support';
import { ensureMpBuilt, expectState, sceneUrl } from './mp-support';
import { look, resetScreenshotDir, type LookOptions, type Problem } from './look';
import { waitFor } from '../../server/test/support/wait';

jest.setTimeout(600_000);

const LANGS: Lang[] = ['en', 'zh-CN'];
const POS_SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
  { width: 800, height: 1280 },
];
const MP_SIZES = [
  { width: 375, height: 667 },
  { width: 390, height: 844 },
];
const LARGEST = '1000000.00';
const PARTNER = { type: 'MERCHANT_ID', account: '1900000501', name: 'Partner Trading Co', relationType: 'PARTNER' } as const;

const POS_LOOK: LookOptions = {
  oneLine: 'button, .money, .chip, .chip-big, .countdown, .paid-at, .amount-entry',
  primary: 'button.primary, button.danger',
  scrollAreas: '[data-scroll-list]',
  actionsInView: true,
};
const MP_LOOK: LookOptions = {
  oneLine: '.btn, .money, .chip, [data-one-line]',
  primary: '.btn--primary',
  actionsInView: true,
};

const backend = backends()[0];
let browser: Browser;
let kit: TestKit;
let f: PayFixture;
let dir: string;

beforeAll(async () => {
  // Without CJK fonts Chromium draws the Chinese screens as empty boxes: nothing worth measuring.
  const cjk = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim();
  if (!cjk) throw new Error('No Chinese font is installed: apt-get install fonts-noto-cjk (.ci/run does it)');
  ensurePosBuilt();
  dir = resetScreenshotDir();
  process.stdout.write(`Screenshots of every screen: ${dir}\n`);
  browser = await launchChromium();
  kit = await startTestKit(backend, { SANDBOX_REFUND_DELAY: '8s', WAIT_FOR_FINISH_HOLD: '3s', POS_POINTS_SESSION_TTL: '15s' });
  f = await payFixture(kit);
  // Orders of this shop are placed with profit sharing, so the orders list shows its chip.
  await kit.runtime.services.merchants.setContracted(f.parentId, true);
  await f.client.setPaymentParams(f.parentId, 'SocialNative', { profitSharing: true });
  await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...PARTNER });
});
afterAll(async () => {
  await browser?.close();
  await kit?.close();
  await backend.cleanup();
});

const label = (size: { width: number; height: number }) => `${size.width}x${size.height}`;

/** Problems are gathered per test and shown together, after every screenshot was saved. */
function expectNoProblems(problems: Problem[]): void {
  expect(problems.map((p) => `${p.screen}: ${p.what}`)).toEqual([]);
}

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

describe('payer page screens (H5)', () => {
  let context: BrowserContext;
  let page: Page;
  let consoleProblems: string[];
  const problems: Problem[] = [];
  /** The orders behind the screens, in the states they show. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ensureMpBuilt();
    context = await browser.newContext({ viewport: MP_SIZES[0], deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    page = await context.newPage();
    consoleProblems = watchConsole(page);

    const items = {
      items: [
        { name: 'Flat white, oat milk, extra shot, large cup to take away', quantity: 2, amount: '64.00' },
        { name: '招牌牛肉面（大碗，加辣）', quantity: 1, price: '38.50' },
        ...Array.from({ length: 22 }, (_, i) => ({ name: `Gift card ${i + 1}`, quantity: 1, amount: '45452.27' })),
      ],
      note: 'Table 12 — please bring water',
    };
    const create = async (extraInfo?: unknown) => (await f.client.createPrepay({ subMerchantId: f.subId, totalAmount: LARGEST, extraInfo })).prepayId;
    ids.ready = await create(items);
    // A discount as a channel might grant one (the service itself never sets it).
    await kit.runtime.db.db.updateTable('prepay_orders').set({ discount_cents: 12_345 }).where('prepay_id', '=', ids.ready).execute();
    ids.plain = await create();
    ids.paid = await create(items);
    ids.expired = await create();
    await kit.runtime.services.prepay.expire(ids.expired);
    ids.refunded = await create();
    for (const id of [ids.paid, ids.refunded]) {
      const { args } = await f.client.socialPayNative(id);
      expect((await sandboxPost(kit.url, '/pay', { codeUrl: args.code_url })).status).toBe(200);
      await waitFor(async () => (await f.client.prepayDetail(id)).status === 'finish', 'payment');
    }
    const { loginToken } = await f.client.login(f.subId, f.pw);
    expect((await payApi.refund(f.client, ids.refunded, loginToken)).body.status).toBe('success');
    await waitFor(async () => (await f.client.prepayDetail(ids.refunded)).status === 'refunded', 'refund');
  });
  afterAll(() => context?.close());

  const url = (id: string, lang: Lang, extra = '') => `${sceneUrl(kit.url, buildScene(id, { f: '2' }))}&lang=${lang}${extra}`;

  async function open(target: string): Promise<void> {
    await page.goto('about:blank');
    await page.goto(target);
  }

  /** The screen `reach` leads to, in both languages and at both phone sizes. */
  async function screens(name: string, state: string, reach: (lang: Lang) => Promise<void>, after?: () => Promise<void>): Promise<void> {
    for (const lang of LANGS) {
      await page.setViewportSize(MP_SIZES[0]);
      await reach(lang);
      await expectState(page, state);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
      for (const size of MP_SIZES) {
        await page.setViewportSize(size);
        // Taro sizes the page from the root font size, which follows the screen width.
        await page.waitForFunction((w) => document.documentElement.style.fontSize === `${(40 * w) / 750}px`, size.width);
        problems.push(...(await look(page, `mp-${name}-${lang}-${label(size)}`, MP_LOOK)));
      }
      await after?.();
    }
  }

  /** Holds every request matching `pattern` until released, to look at the screen meanwhile. */
  async function hold(pattern: string): Promise<() => Promise<void>> {
    const held: Route[] = [];
    await page.route(pattern, (r) => void held.push(r));
    return async () => {
      for (const r of held) await r.abort().catch(() => undefined);
      await page.unroute(pattern);
    };
  }

  it('loading, the order with its items and discount, and paying', async () => {
    let release: (() => Promise<void>) | null = null;
    await screens(
      'loading',
      'loading',
      async (lang) => {
        release = await hold('**/mp/api/orders/**');
        await page.goto(url(ids.plain, lang));
      },
      async () => release?.(),
    );

    await screens('order', 'ready', (lang) => open(url(ids.ready, lang)));
    expect(await page.getByTestId('mp-amount').textContent()).toBe('¥1,000,000.00');
    expect(await page.getByTestId('mp-discount').textContent()).toContain('-¥123.45');
    expect(await page.getByTestId('mp-order-number').textContent()).toBe(ids.ready);
    expect(await page.getByTestId('mp-item').count()).toBe(20);
    expect(await page.getByTestId('mp-pay').textContent()).toBe('支付 ¥1,000,000.00');
    expect(await page.getByTestId('mp-pay').getAttribute('disabled')).toBeNull();

    await screens('order-plain', 'ready', (lang) => open(url(ids.plain, lang)));
    await screens('order-payment-cancelled', 'ready', (lang) => open(url(ids.plain, lang, '&sandboxResult=cancel')));
    expect(await page.getByTestId('mp-notice').getAttribute('data-notice')).toBe('cancelled');

    await screens(
      'paying',
      'paying',
      async (lang) => {
        await open(url(ids.plain, lang));
        await expectState(page, 'ready');
        release = await hold('**/mp/api/pay');
        await page.getByTestId('mp-pay').click();
        // Busy: disabled (present, not "false"), and still a clear primary button (measured by look).
        await page.locator('[data-testid="mp-pay"][data-busy="true"][disabled]').waitFor();
      },
      async () => release?.(),
    );
    expectNoProblems(problems.splice(0));
  });

  it('waiting, the receipt, and the pages of paid, refunded, expired, unknown, rescan and failed orders', async () => {
    // Back from the cashier with "paid" while the order is still active: the page waits for the service.
    await screens('waiting', 'waiting', (lang) => open(url(ids.plain, lang, '&sandboxResult=paid')));
    await screens('receipt', 'success', (lang) => open(url(ids.paid, lang, '&sandboxResult=paid')));
    expect(await page.getByTestId('mp-receipt').count()).toBe(1);
    expect(await page.getByTestId('mp-order-number').textContent()).toBe(ids.paid);
    expect(await page.getByTestId('mp-paid-at').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    await screens('already-paid', 'paid', (lang) => open(url(ids.paid, lang)));
    await screens('refunded', 'refunded', (lang) => open(url(ids.refunded, lang)));
    await screens('expired', 'expired', (lang) => open(url(ids.expired, lang)));
    await screens('unknown', 'missing', (lang) => open(url('NoSuchOrder0', lang)));
    await screens('rescan', 'rescan', async (lang) => {
      const id = (await f.client.createPrepay({ subMerchantId: f.subId, totalAmount: LARGEST })).prepayId;
      await open(url(id, lang));
      await expectState(page, 'ready');
      await kit.runtime.services.prepay.expire(id);
      await page.getByTestId('mp-pay').click();
    });
    await screens(
      'load-failed',
      'error',
      async (lang) => {
        await page.route('**/mp/api/orders/**', (r) => r.abort('internetdisconnected'));
        await open(url(ids.plain, lang));
      },
      () => page.unroute('**/mp/api/orders/**'),
    );
    expect(await page.getByTestId('mp-retry').count()).toBe(1);
    expectNoProblems(problems.splice(0));
  });

  it('follows the phone’s language without ?lang=, and logged no unexpected console errors', async () => {
    const zh = await browser.newContext({ viewport: MP_SIZES[1], isMobile: true, hasTouch: true, locale: 'zh-CN' });
    const p = await zh.newPage();
    await p.goto(sceneUrl(kit.url, buildScene(ids.plain)));
    await expectState(p, 'ready');
    expect(await p.getByTestId('mp-pay').textContent()).toBe('支付 ¥1,000,000.00');
    expect(await p.title()).toBe('支付');
    await zh.close();
    // Provoked on purpose: the unknown order (404), the aborted loads.
    expect(consoleProblems.filter((p) => !/status of 404|net::ERR_(INTERNET_DISCONNECTED|FAILED|ABORTED)/.test(p))).toEqual([]);
  });
});
