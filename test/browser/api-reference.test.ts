/**
 * `/docs/` in Chromium: the reference of `/openapi.json` renders from the service's own files,
 * without errors; "Try it" signs a call in the page with an app kept only in its memory (never
 * stored, never sent: only the signature travels); the language switch shows the prose in Chinese.
 */
import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { launchChromium, watchConsole } from './chromium';
import { look, screenshotDir } from './look';
import fs from 'node:fs';

/** Swagger UI draws the operations after loading the description: seconds on a machine running other suites beside it. */
const RENDERED_WITHIN = 40_000;

const backend = backends()[0];
const DOCS_LOOK = { oneLine: '.langs button, .try-fields button', primary: '.nothing-primary' };

/**
 * Waits until Swagger UI's virtual list has drawn what the screen shows: the page's reference (a
 * new one after a language switch) has loaded its operations, the page has stopped scrolling (the
 * same position two frames running) and the list's drawn items cover the part of the list that is
 * on screen.
 */
async function listDrawn(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const w = window as unknown as { kitLastScrollY?: number; ui?: { specSelectors: { operations(): { size: number } } } };
      if (!w.ui || w.ui.specSelectors.operations().size === 0) return false;
      const still = w.kitLastScrollY === window.scrollY;
      w.kitLastScrollY = window.scrollY;
      if (!still) return false;
      const list = document.querySelector('.operations-virtual__list');
      if (!list) return false;
      const shown = list.getBoundingClientRect();
      // Not laid out yet (no items, no height): nothing drawn.
      if (shown.height === 0) return false;
      const top = Math.max(0, shown.top);
      const bottom = Math.min(window.innerHeight, shown.bottom);
      // The list is off the screen: nothing of it to draw.
      if (bottom <= top) return true;
      const items = list.querySelectorAll(':scope > .operations-virtual__item');
      if (items.length === 0) return false;
      return items[0].getBoundingClientRect().top <= top + 1 && items[items.length - 1].getBoundingClientRect().bottom >= bottom - 1;
    },
    undefined,
    { polling: 'raf', timeout: RENDERED_WITHIN },
  );
}

/**
 * Swagger UI draws a long reference as a virtual list (from 150 tags and operations on, which this
 * kit's has): only what is near the viewport is in the page. Scrolls from the top until `target`
 * is there, as a reader scrolls to it: a step of the mouse wheel (less than a screen) at a time,
 * each once the list has drawn what the screen shows.
 */
async function scrollTo(page: Page, target: Locator): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await listDrawn(page);
  while ((await target.count()) === 0) {
    const before = await page.evaluate(() => window.scrollY);
    const bottom = await page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1);
    if (bottom) throw new Error(`scrolled the reference to its end without reaching ${target.toString()}`);
    await page.mouse.wheel(0, 500);
    await page.waitForFunction((y) => window.scrollY !== y, before, { polling: 'raf' });
    await listDrawn(page);
  }
  // The list redraws while it settles: an element found may be replaced by its redrawn copy, which the locator finds again.
  await target.first().scrollIntoViewIfNeeded();
}

describe('API reference page', () => {
  let kit: TestKit;
  let browser: Browser;
  beforeAll(async () => {
    kit = await startTestKit(backend, backend.env());
    browser = await launchChromium();
    fs.mkdirSync(screenshotDir(), { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await kit?.close();
  });

  async function open(path = '/docs/'): Promise<{ context: BrowserContext; page: Page; problems: string[]; requests: Request[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const page = await context.newPage();
    const problems = watchConsole(page);
    const requests: Request[] = [];
    page.on('request', (r) => void requests.push(r));
    await page.goto(`${kit.url}${path}`);
    return { context, page, problems, requests };
  }

  it('lists the endpoints with their specification sections, fetching nothing from elsewhere', async () => {
    const { context, page, problems, requests } = await open();
    try {
      await page.getByText('4.1 Create a prepay order').waitFor({ timeout: RENDERED_WITHIN });
      expect(
        await page.evaluate(() => (window as unknown as { ui: { specSelectors: { operations(): { size: number } } } }).ui.specSelectors.operations().size),
      ).toBeGreaterThan(30);
      await scrollTo(page, page.getByText('4.15 Look up uploaded items', { exact: false }));
      await page.getByText('4.15 Look up uploaded items', { exact: false }).waitFor();
      await page.evaluate(() => window.scrollTo(0, 0));
      // Opening an endpoint shows its schema.
      await page.getByText('4.2 Read a prepay order, optionally held until it is paid').click();
      await page.getByText('waitForFinish', { exact: true }).first().waitFor();
      expect(problems).toEqual([]);
      expect(requests.map((r) => r.url()).filter((u) => !u.startsWith(kit.url) && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('Try it: signs a GET and a POST in the page with the app entered, which is never stored or sent', async () => {
    const { appId, appSecret } = await kit.newApp();
    const { context, page, problems, requests } = await open();
    try {
      await page.getByText('4.1 Create a prepay order').waitFor({ timeout: RENDERED_WITHIN });
      expect(await page.getByTestId('docs-try-status').textContent()).toMatch(/^No app entered/);
      await page.getByTestId('docs-app-id').fill(appId);
      await page.getByTestId('docs-app-secret').fill(appSecret);
      expect(await page.getByTestId('docs-try-status').textContent()).toBe(`Signed calls are signed as ${appId}.`);
      expect(await page.locator('.auth-wrapper').isVisible()).toBe(false);
      fs.writeFileSync(`${screenshotDir()}/docs-try-it-en-1280x800.png`, await page.screenshot());

      // GET /reconciliation: no parameter needed, signed here, answered 200 "success".
      const list = page.locator('#operations-Reconciliation-getReconciliation');
      await scrollTo(page, list);
      await list.locator('.opblock-summary').click();
      await list.getByRole('button', { name: 'Try it out' }).click();
      await list.getByRole('button', { name: 'Execute' }).click();
      const listAnswer = list.locator('.live-responses-table .response').first();
      await listAnswer.waitFor();
      expect(await listAnswer.locator('.response-col_status').textContent()).toContain('200');
      expect(await listAnswer.textContent()).toContain('"status": "success"');

      // POST /merchant (4.17) with a body: the signature covers the bytes sent.
      const create = page.locator('#operations-Merchants-postMerchant');
      await scrollTo(page, create);
      await create.locator('.opblock-summary').click();
      await create.getByRole('button', { name: 'Try it out' }).click();
      const body = JSON.stringify({ type: 'merchant', parameters: { displayName: 'Tried Co', pw: 'correct horse battery', appId } });
      await create.locator('textarea.body-param__text').fill(body);
      await create.getByRole('button', { name: 'Execute' }).click();
      const createAnswer = create.locator('.live-responses-table .response').first();
      await createAnswer.waitFor();
      expect(await createAnswer.textContent()).toContain('"status": "success"');
      expect(await createAnswer.locator('.response-col_status').textContent()).toContain('200');

      // The calls carried the app id and a signature, never the secret; the page kept it nowhere.
      const calls = requests.filter((r) => /\/(reconciliation|merchant)\?/.test(r.url()));
      expect(calls).toHaveLength(2);
      for (const r of requests) {
        expect(r.url()).not.toContain(appSecret);
        expect(r.postData() ?? '').not.toContain(appSecret);
        expect(JSON.stringify(await r.allHeaders())).not.toContain(appSecret);
      }
      for (const r of calls) expect(new URL(r.url()).searchParams.get('_s')).toMatch(/^[0-9a-f]{64}$/);
      const kept = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
      expect(kept).not.toContain(appSecret);
      expect((await context.cookies()).map((c) => c.value).join()).not.toContain(appSecret);
      expect(problems).toEqual([]);

      // Forget clears it: a signed call then goes unsigned and is refused.
      await page.getByTestId('docs-forget').click();
      expect(await page.getByTestId('docs-app-secret').inputValue()).toBe('');
      expect(await page.getByTestId('docs-try-status').textContent()).toMatch(/^No app entered/);
    } finally {
      await context.close();
    }
  });

  it('switches its prose to Chinese and back, keeping the address', async () => {
    const { context, page, problems } = await open();
    try {
      await page.getByText('4.1 Create a prepay order').waitFor({ timeout: RENDERED_WITHIN });
      await page.getByTestId('docs-lang-zh').click();
      await page.getByText('4.1 创建预支付订单').waitFor({ timeout: RENDERED_WITHIN });
      expect(await page.evaluate(() => [document.documentElement.lang, new URL(location.href).searchParams.get('lang')])).toEqual(['zh-CN', 'zh-CN']);
      expect(await page.getByTestId('docs-try-it').locator('h2').textContent()).toBe('在线调用');
      expect(await page.locator('.info .description').first().textContent()).toContain('面向在社交应用中销售的商户');
      await scrollTo(page, page.getByText('4.6 全额退款一笔已支付订单'));
      await page.getByText('4.6 全额退款一笔已支付订单').click();
      await page.getByText('规范第 4.6 节。', { exact: false }).first().waitFor();
      expect(await look(page, 'docs-zh-CN-1280x800', DOCS_LOOK)).toEqual([]);
      await page.getByTestId('docs-lang-en').click();
      // The English reference has replaced the Chinese one. Until then the list holds the Chinese
      // operations (or none while it loads, the page as short as one screen): a search there ends
      // at the page's end without the English title.
      await page.locator('.info .description').filter({ hasText: 'Payments, trusted points and chain records' }).waitFor({ timeout: RENDERED_WITHIN });
      // Back to the top, where the list starts, as a reader scrolls (it draws only what is near the screen).
      await scrollTo(page, page.getByText('4.1 Create a prepay order'));
      // Opened with ?lang=zh-CN, the page is Chinese from the start.
      await page.goto(`${kit.url}/docs/?lang=zh-CN`);
      await page.getByText('4.1 创建预支付订单').waitFor({ timeout: RENDERED_WITHIN });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
