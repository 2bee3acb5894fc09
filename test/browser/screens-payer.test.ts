/**
 * Tests that look, the payer page (H5): every screen at 375×667 and 390×844, in Chinese and English,
 * with the largest amount, against a real service and its sandbox in Debian Chromium, measured and
 * saved as the POS display's are (`screens-pos.test.ts`, `look.ts`).
 */
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { buildScene } from '@kit/shared/scene';
import type { Lang } from '@kit/shared/i18n';
import type { TestKit } from '../../server/test/support/kit';
import { payApi, sandboxPost, type PayFixture } from '../../server/test/support/payments';
import { watchConsole } from './chromium';
import { ensureMpBuilt, expectState, sceneUrl } from './mp-support';
import { look, type LookOptions, type Problem } from './look';
import { waitFor } from '../../server/test/support/wait';
import { LANGS, LARGEST, expectNoProblems, label, startScreens, type ScreensRig } from './screens-support';

jest.setTimeout(300_000);

const MP_SIZES = [
  { width: 375, height: 667 },
  { width: 390, height: 844 },
];

const MP_LOOK: LookOptions = {
  oneLine: '.btn, .money, .chip, [data-one-line]',
  primary: '.btn--primary',
  actionsInView: true,
};

let rig: ScreensRig;
let browser: Browser;
let kit: TestKit;
let f: PayFixture;

beforeAll(async () => {
  ensureMpBuilt();
  rig = await startScreens('mp-', { SANDBOX_REFUND_DELAY: '8s' });
  ({ browser, kit, f } = rig);
});
afterAll(() => rig?.close());

describe('payer page screens (H5)', () => {
  let context: BrowserContext;
  let page: Page;
  let consoleProblems: string[];
  const problems: Problem[] = [];
  /** The orders behind the screens, in the states they show. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
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
    // The platform completes the refund SANDBOX_REFUND_DELAY later, on the service's clock.
    await kit.advance('8s');
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
