/**
 * Both front ends behind a BASE_PATH, from the same builds as at the root: the POS display at
 * `/kit/pos/` logs in, charges and shows a code whose link opens the mini-program at `/kit/mp/`,
 * which loads the order through `/kit/mp/api`. Asset URLs in both builds are relative.
 */
import type { Browser } from 'playwright-core';
import { parseScene } from '@kit/shared/scene';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { payFixture, type PayFixture } from '../../server/test/support/payments';
import { SOCIAL_APP_UA, decodeQr, launchChromium, watchConsole } from './chromium';
import { counterContext, ensurePosBuilt, login, typeAmount } from './pos-support';
import { ensureMpBuilt, expectState, textOf } from './mp-support';

jest.setTimeout(120_000);

const backend = backends()[0];
let browser: Browser;
let kit: TestKit;
let f: PayFixture;

beforeAll(async () => {
  ensurePosBuilt();
  ensureMpBuilt();
  browser = await launchChromium();
  kit = await startTestKit(backend, { BASE_PATH: '/kit' });
  f = await payFixture(kit);
});
afterAll(async () => {
  await kit?.close();
  await browser?.close();
  await backend.cleanup();
});

it('serves the POS display and the mini-program under /kit, end to end', async () => {
  expect(new URL(kit.url).pathname).toBe('/kit');
  const counter = await counterContext(browser);
  const pos = await counter.newPage();
  const posProblems = watchConsole(pos);
  await login(pos, kit.url, f.subId, f.pw);
  expect((await counter.cookies()).find((c) => c.name === 'pos_login')).toMatchObject({ path: '/kit/pos' });
  await typeAmount(pos, '4.56');
  await pos.getByTestId('charge-submit').click();
  await pos.getByTestId('pay-qr').waitFor();
  const prepayId = /#\/pay\/([0-9A-Za-z]+)$/.exec(pos.url())![1];
  // The code for any wallet, under the base path; the social app's browser goes on to the payer page there.
  const link = await decodeQr(pos.getByTestId('pay-qr'));
  expect(link).toBe(`${kit.url}/p/${prepayId}`);
  expect(posProblems).toEqual([]);

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, userAgent: SOCIAL_APP_UA });
  const mp = await phone.newPage();
  const mpProblems = watchConsole(mp);
  await mp.goto(link);
  expect(mp.url().startsWith(`${kit.url}/mp/#/pages/pay/index?scene=`)).toBe(true);
  expect(parseScene(new URL(mp.url().replace('#', '')).searchParams.get('scene'))).toBe(prepayId);
  await expectState(mp, 'ready');
  expect(await textOf(mp, 'mp-amount')).toContain('4.56');
  expect(mpProblems).toEqual([]);
  await phone.close();
  await counter.close();
});

it('serves the front page and the sandbox page under /kit, with links under /kit', async () => {
  const page = await browser.newPage();
  const problems = watchConsole(page);
  try {
    for (const at of [kit.url, `${kit.url}/`]) {
      expect((await page.goto(at))?.status()).toBe(200);
      expect(await page.locator('h2 a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([
        '/kit/pos/',
        '/kit/mp/',
        '/kit/console/',
        '/kit/docs/',
        '/kit/sandbox/',
      ]);
    }
    await page.goto(`${kit.url}/sandbox`);
    expect(page.url()).toBe(`${kit.url}/sandbox/`);
    await page.getByTestId('faults-reset').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=faults-message]')?.className.includes('ok'));
    expect(await page.locator('a[href="/kit/"]').count()).toBe(1);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
});
