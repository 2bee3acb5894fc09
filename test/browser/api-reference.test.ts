/** `/docs/` in Chromium: the reference of `/openapi.json` renders from the service's own files, without errors. */
import type { Browser } from 'playwright-core';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { launchChromium, watchConsole } from './chromium';

const backend = backends()[0];

describe('API reference page', () => {
  let kit: TestKit;
  let browser: Browser;
  beforeAll(async () => {
    kit = await startTestKit(backend, backend.env());
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await kit?.close();
  });

  it('lists the endpoints with their specification sections, fetching nothing from elsewhere', async () => {
    const page = await browser.newPage();
    const problems = watchConsole(page);
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(kit.url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    await page.goto(`${kit.url}/docs/`);
    await page.getByText('4.1 Create a prepay order').waitFor({ timeout: 20_000 });
    await page.getByText('4.15 Look up uploaded items', { exact: false }).waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(30);
    // Opening an endpoint shows its schema.
    await page.getByText('4.2 Read a prepay order, optionally held until it is paid').click();
    await page.getByText('waitForFinish', { exact: true }).first().waitFor();
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
});
