/**
 * The mini-program's H5 build in Debian Chromium against a real service and its sandbox: opening
 * from a scene (with and without extra parameters, the id not first, ids of other lengths) or a
 * plain QR link, missing and expired orders, and paying through the sandbox cashier (cancel, then
 * pay) until the page shows success.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildScene } from '@kit/shared/scene';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { newOrder, payFixture, type PayFixture } from '../../server/test/support/payments';
import { launchChromium, watchConsole } from './chromium';
import { ensureMpBuilt, expectState, qUrl, sceneUrl, textOf } from './mp-support';
import { waitFor } from '../../server/test/support/wait';

jest.setTimeout(180_000);

let browser: Browser;
const backend = backends()[0];

beforeAll(async () => {
  ensureMpBuilt();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await backend.cleanup();
});

/** A phone-sized context. */
const phone = (b: Browser) => b.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });

describe('mini-program H5 page in Chromium', () => {
  let kit: TestKit;
  let f: PayFixture;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    kit = await startTestKit(backend, { WAIT_FOR_FINISH_HOLD: '5s' });
    f = await payFixture(kit);
    context = await phone(browser);
    page = await context.newPage();
    problems = watchConsole(page);
  });
  afterAll(async () => {
    await context?.close();
    await kit?.close();
  });
  afterEach(() => {
    expect(problems.filter((p) => !/status of 404/.test(p)).map((p) => p.slice(0, 300))).toEqual([]);
    problems.length = 0;
  });

  /** Opens the page fresh (a new document, as a scan would). */
  async function open(url: string): Promise<void> {
    await page.goto('about:blank');
    await page.goto(url);
  }

  it('shows the merchant, the amount and a pay button for a scene with `&f=2`', async () => {
    const id = await newOrder(f, '12.34');
    await open(sceneUrl(kit.url, buildScene(id, { f: '2' })));
    await expectState(page, 'ready');
    expect(await textOf(page, 'mp-merchant')).toBe('Corner Shop');
    expect(await textOf(page, 'mp-amount')).toBe('¥12.34');
    expect(await page.getByTestId('mp-pay').count()).toBe(1);
  });

  it('reads a scene without extra parameters, and one with the id not first', async () => {
    const id = await newOrder(f, '0.50');
    await open(sceneUrl(kit.url, buildScene(id)));
    await expectState(page, 'ready');
    expect(await textOf(page, 'mp-amount')).toBe('¥0.50');

    const id2 = await newOrder(f, '3.00');
    await open(sceneUrl(kit.url, `sm.pay?f=2&prepayid=${id2}&x=y`));
    await expectState(page, 'ready');
    expect(await textOf(page, 'mp-amount')).toBe('¥3.00');
  });

  it('reads the id from a plain QR link delivered as `q`', async () => {
    const id = await newOrder(f, '8.88');
    await open(qUrl(kit.url, `https://shop.example/pay/sm.pay?prepayid=${id}&f=2`));
    await expectState(page, 'ready');
    expect(await textOf(page, 'mp-amount')).toBe('¥8.88');
  });

  it('does not depend on the id length: shorter and longer ids of existing orders, and a missing long id', async () => {
    // Orders with ids of other lengths, as a future id format might have (same merchant and fields).
    const template = await kit.runtime.services.prepay.find(await newOrder(f, '1.00'));
    const db = kit.runtime.db.db;
    for (const [id, cents] of [
      ['Ab3', 123],
      ['Zz9' + 'q'.repeat(27), 4567],
    ] as const) {
      await db
        .insertInto('prepay_orders')
        .values({ ...template!, prepay_id: id, total_cents: cents })
        .execute();
      await open(sceneUrl(kit.url, buildScene(id, { f: '2' })));
      await expectState(page, 'ready');
      expect(await textOf(page, 'mp-amount')).toBe(cents === 123 ? '¥1.23' : '¥45.67');
    }
    await open(sceneUrl(kit.url, buildScene('NoSuchOrder' + '0'.repeat(20), { f: '2' })));
    await expectState(page, 'missing');
    expect(await page.getByTestId('mp-pay').count()).toBe(0);
  });

  it('shows "missing" for a link without a prepay id', async () => {
    await open(`${kit.url}/mp/#/pages/pay/index`);
    await expectState(page, 'missing');
    await open(sceneUrl(kit.url, 'sm.pay?xprepayid=ABC'));
    await expectState(page, 'missing');
  });

  it('pays through the sandbox cashier: cancel keeps it payable, pay shows success', async () => {
    const id = await newOrder(f, '23.45');
    const url = sceneUrl(kit.url, buildScene(id, { f: '2' }));
    await open(url);
    await expectState(page, 'ready');

    await page.getByTestId('mp-pay').click();
    await page.waitForURL(/\/sandbox\/cashier\?/);
    expect(await page.locator('#sandbox-amount').textContent()).toBe('¥23.45');
    await page.locator('#sandbox-cancel').click();
    await page.waitForURL(/sandboxResult=cancel/);
    await expectState(page, 'ready');
    expect(await page.getByTestId('mp-notice').getAttribute('data-notice')).toBe('cancelled');
    expect((await kit.runtime.services.prepay.find(id))!.status).toBe('active');

    await page.getByTestId('mp-pay').click();
    await page.waitForURL(/\/sandbox\/cashier\?/);
    // The return URL is the page itself, without the earlier result.
    const ret = new URL(page.url()).searchParams.get('return')!;
    expect(ret).toBe(url);
    await page.locator('#sandbox-pay').click();
    await page.waitForURL(/sandboxResult=paid/);
    await expectState(page, 'success');
    expect(await textOf(page, 'mp-amount')).toBe('¥23.45');
    // A drawn check mark, not a glyph that some fonts turn into √.
    expect(await textOf(page, 'mp-result-icon')).toBe('');
    expect(await page.getByTestId('mp-result-check').evaluate((el) => [getComputedStyle(el).transform, getComputedStyle(el).borderBottomWidth])).toEqual([
      expect.stringMatching(/^matrix\(0\.70/),
      expect.not.stringMatching(/^0px$/),
    ]);
    // The receipt: merchant, amount, time and order number.
    expect(await textOf(page, 'mp-merchant')).toBe('Corner Shop');
    expect(await textOf(page, 'mp-order-number')).toBe(id);
    expect(await textOf(page, 'mp-paid-at')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect((await kit.runtime.services.prepay.find(id))!.status).toBe('finish');

    // Scanning the same code again: the order is paid, there is nothing more to pay.
    await open(url);
    await expectState(page, 'paid');
    expect(await page.getByTestId('mp-pay').count()).toBe(0);
  });
});

describe('mini-program H5 page with a short order lifetime', () => {
  let kit: TestKit;
  let f: PayFixture;
  let context: BrowserContext;

  beforeAll(async () => {
    // The orders expire when the test moves the service's clock past their lifetime.
    kit = await startTestKit(backend, { ORDER_TTL: '10m' });
    f = await payFixture(kit);
    context = await phone(browser);
  });
  afterAll(async () => {
    await context?.close();
    await kit?.close();
  });

  /** Moves the service's clock past the order's lifetime, until the expiry sweep has moved it out of `active`. */
  const expired = async (id: string) => {
    await kit.advance('10m');
    await waitFor(async () => (await kit.runtime.services.prepay.find(id))!.status !== 'active', 'the order to expire');
  };

  it('shows an expired order as expired, with no pay button', async () => {
    const id = await newOrder(f, '9.99');
    await expired(id);
    const page = await context.newPage();
    await page.goto(sceneUrl(kit.url, buildScene(id, { f: '2' })));
    await expectState(page, 'expired');
    expect(await textOf(page, 'mp-status')).toBe('This order is no longer valid');
    expect(await textOf(page, 'mp-detail')).toMatch(/expired/);
    expect(await textOf(page, 'mp-amount')).toBe('¥9.99');
    expect(await page.getByTestId('mp-pay').count()).toBe(0);
  });

  it('asks to scan again when the order expires between opening and paying', async () => {
    const id = await newOrder(f, '4.00');
    const page = await context.newPage();
    await page.goto(sceneUrl(kit.url, buildScene(id)));
    await expectState(page, 'ready');
    await expired(id);
    await page.getByTestId('mp-pay').click();
    await expectState(page, 'rescan');
    expect(await textOf(page, 'mp-detail')).toMatch(/scan the code at the counter again/);
    expect(await page.getByTestId('mp-pay').count()).toBe(0);
  });
});
