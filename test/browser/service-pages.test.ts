/**
 * The service's own small pages in Chromium, in both languages: `/` leads to every screen, and
 * `/sandbox/` pays a code and sets the faults the way `POST /sandbox/pay` and `/sandbox/faults` do;
 * the sandbox cashier speaks the payer's language, and so does its Alipay cashier, which pays a
 * payment page URL and returns to `return_url`. Each page is measured and saved (look.ts).
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { Lang } from '@kit/shared';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { newOrder, payFixture, sandboxOpenId, type PayFixture } from '../../server/test/support/payments';
import { launchChromium, watchConsole } from './chromium';
import { look, screenshotDir, type LookOptions } from './look';
import { waitFor } from '../../server/test/support/wait';

jest.setTimeout(120_000);

const LOOK: LookOptions = { oneLine: 'button, h1, .tag, .langs a, h2 a', primary: 'button.primary', actionsInView: false };
const LANGS: Lang[] = ['en', 'zh-CN'];
const backend = backends()[0];
let browser: Browser;
let kit: TestKit;
let f: PayFixture;

beforeAll(async () => {
  fs.mkdirSync(screenshotDir(), { recursive: true });
  browser = await launchChromium();
  kit = await startTestKit(backend);
  f = await payFixture(kit);
});
afterAll(async () => {
  await browser?.close();
  await kit?.close();
  await backend.cleanup();
});

async function open(path: string, lang: Lang, size = { width: 1024, height: 768 }): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: size, locale: lang });
  const problems = watchConsole(page);
  const res = await page.goto(`${kit.url}${path}`);
  expect(res?.status()).toBe(200);
  return { page, problems };
}

describe.each(LANGS)('in %s', (lang) => {
  it('/ links the POS, the payer page, the console, the docs and the sandbox, in the browser language', async () => {
    const { page, problems } = await open('/', lang);
    try {
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
      const hrefs = await page.locator('h2 a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
      expect(hrefs).toEqual(['/pos/', '/mp/', '/console/', '/docs/', '/sandbox/']);
      expect(await page.locator('h1').textContent()).toBe(lang === 'en' ? 'Merchant kit' : '商户套件');
      for (const href of ['/docs/', '/sandbox/']) expect((await fetch(`${kit.url}${href}`)).status).toBe(200);
      expect(await look(page, `home-${lang}`, LOOK)).toEqual([]);
      for (const size of [{ width: 375, height: 667 }]) {
        await page.setViewportSize(size);
        expect(await look(page, `home-${lang}-${size.width}x${size.height}`, LOOK)).toEqual([]);
      }
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('/sandbox/ pays a scan-code QR content and sets and resets the faults', async () => {
    const prepayId = await newOrder(f, '3.21');
    const { args } = await f.client.socialPayNative(prepayId);
    const { page, problems } = await open('/sandbox', lang);
    try {
      expect(page.url()).toBe(`${kit.url}/sandbox/`);
      expect(await page.locator('h1').textContent()).toBe(lang === 'en' ? 'Payment sandbox' : '支付沙箱');
      await page.getByTestId('sandbox-pay-code').click();
      await expect(page.getByTestId('pay-message').textContent()).resolves.toBe(
        lang === 'en' ? 'Paste a code_url or a prepay id first.' : '请先粘贴 code_url 或预支付 ID。',
      );
      await page.getByTestId('sandbox-code').fill(args.code_url);
      await page.getByTestId('sandbox-pay-code').click();
      await page.waitForFunction(() => document.querySelector('[data-testid=pay-message]')?.className.includes('ok'));
      expect(await page.getByTestId('pay-message').textContent()).toMatch(/4200\d+/);
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      // Paying it again says why not, in the sandbox's words.
      await page.getByTestId('sandbox-pay-code').click();
      await page.waitForFunction(() => document.querySelector('[data-testid=pay-message]')?.className.includes('error'));

      await page.getByTestId('fault-payNotifications').selectOption('drop');
      await page.getByTestId('fault-refunds').selectOption('hold');
      await page.getByTestId('faults-apply').click();
      const faults = async () => ((await (await fetch(`${kit.url}/sandbox/faults`)).json()) as { faults: object }).faults;
      await waitFor(
        async () =>
          JSON.stringify(await faults()) ===
          JSON.stringify({
            payNotifications: 'drop',
            refunds: 'hold',
            refundNotifications: 'deliver',
            splits: 'answer',
            reverseRecalls: 0,
            billExtraPayments: 0,
            billAmountChanged: [],
            billOmitted: [],
            billNextDay: [],
            bills: 'ready',
            v3Serial: 'public-key',
            v3Certificates: 'current',
            mpTokens: 'valid',
            alipayRefusals: {},
            alipayErrors: 'signed',
            v3SignProbes: 0,
          }),
      );
      await page.reload();
      expect(await page.getByTestId('fault-payNotifications').inputValue()).toBe('drop');
      expect(await look(page, `sandbox-${lang}`, LOOK)).toEqual([]);
      await page.getByTestId('faults-reset').click();
      await waitFor(
        async () =>
          JSON.stringify(await faults()) ===
          JSON.stringify({
            payNotifications: 'deliver',
            refunds: 'answer',
            refundNotifications: 'deliver',
            splits: 'answer',
            reverseRecalls: 0,
            billExtraPayments: 0,
            billAmountChanged: [],
            billOmitted: [],
            billNextDay: [],
            bills: 'ready',
            v3Serial: 'public-key',
            v3Certificates: 'current',
            mpTokens: 'valid',
            alipayRefusals: {},
            alipayErrors: 'signed',
            v3SignProbes: 0,
          }),
      );
      // The service has reset them; the page shows it once the reset's answer reaches it.
      await waitFor(async () => (await page.getByTestId('fault-refunds').inputValue()) === 'answer', 'the page to show the reset');
      await page.setViewportSize({ width: 375, height: 667 });
      expect(await look(page, `sandbox-${lang}-375x667`, LOOK)).toEqual([]);
      expect(problems.filter((p) => !/status of 409/.test(p))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the sandbox cashier speaks the payer language', async () => {
    const prepayId = await newOrder(f, '8.00');
    const mp = { appid: kit.runtime.config.MP_APPID!, secret: kit.runtime.config.MP_SECRET! };
    const pkg = (await f.client.socialPay(prepayId, await sandboxOpenId(kit.url, 'cashier-user', mp))).args.package;
    const { page } = await open(`/sandbox/cashier?package=${encodeURIComponent(pkg)}&lang=${lang}`, lang, { width: 390, height: 844 });
    try {
      expect(await page.locator('#sandbox-pay').textContent()).toBe(lang === 'en' ? 'Pay' : '支付');
      expect(await page.locator('#sandbox-state').textContent()).toBe(lang === 'en' ? 'Waiting for payment' : '等待付款');
      expect(await look(page, `sandbox-cashier-${lang}`, { ...LOOK, actionsInView: true })).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("the sandbox's Alipay cashier opens the signed payment page URL, pays it and returns to return_url", async () => {
    await f.client.setPaymentParams(f.parentId, 'Alipay', { appAuthToken: 'appAuthToken_browser_01' });
    const prepayId = await newOrder(f, '9.10');
    const returnUrl = `${kit.url}/?lang=${lang}&back=${prepayId}`;
    const { args } = await f.client.alipayWap(prepayId, returnUrl);
    const { page, problems } = await open(`${args.url.slice(kit.url.length)}&lang=${lang}`, lang, { width: 390, height: 844 });
    try {
      expect(await page.locator('#alipay-pay').textContent()).toBe(lang === 'en' ? 'Pay with Alipay' : '用支付宝付款');
      expect(await page.locator('#alipay-state').textContent()).toBe(lang === 'en' ? 'Waiting for payment' : '等待付款');
      expect(await page.locator('#alipay-amount').textContent()).toBe('¥9.10');
      expect(await look(page, `sandbox-alipay-cashier-${lang}`, { ...LOOK, actionsInView: true })).toEqual([]);
      await Promise.all([page.waitForURL((u) => u.searchParams.get('back') === prepayId), page.locator('#alipay-pay').click()]);
      expect(new URL(page.url()).searchParams.get('method')).toBe('alipay.trade.wap.pay.return');
      expect((await f.client.waitForPayment(prepayId)).status).toBe('finish');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
