/**
 * "Scan the payer's code" (7.4) on the POS in Chromium against a real service: the sandbox shows a
 * payer's payment code, the cashier types it (as a scanner does: the digits, then Enter) and the
 * screen says what happens: paid with which wallet; waiting for the payer to confirm, with the
 * time left, then paid; refused, with what to do. Each state is photographed and looked at.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backends } from '../../server/test/support/backends';
import { startReceiver } from '../../server/test/support/payments';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { bothWalletsFixture, sandboxPost, type PayFixture } from '../../server/test/support/payments';
import { launchChromium, watchConsole } from './chromium';
import { look, type LookOptions } from './look';
import { counterContext, ensurePosBuilt, login, typeAmount } from './pos-support';

const backend = backends()[0];
const POS_LOOK: LookOptions = { oneLine: 'button, .money, .chip, .chip-big', primary: 'button.primary', actionsInView: true };

let browser: Browser;
let kit: TestKit;
let f: PayFixture;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  ensurePosBuilt();
  browser = await launchChromium();
  kit = await startTestKit(backend);
  receiver = await startReceiver();
  f = await bothWalletsFixture(kit, 'appAuthToken_pos_code_0001', `${receiver.url}/cb`);
  context = await counterContext(browser);
  page = await context.newPage();
  problems = watchConsole(page);
  await login(page, kit.url, f.subId, f.pw);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await kit?.close();
  await receiver?.close();
  await backend.cleanup();
});

const codeOf = async (wallet: 'social' | 'alipay', behaviour: string) =>
  (await sandboxPost(kit.url, '/payment-code', { wallet, behaviour })).body.code as string;

/** A new sale of `amount` on the keypad, on its payment screen, in "Scan the payer's code". */
async function charge(amount: string): Promise<void> {
  if (await page.getByTestId('new-sale').count()) await page.getByTestId('new-sale').click();
  await typeAmount(page, amount);
  await page.getByTestId('charge-submit').click();
  await page.getByTestId('view-payercode').click();
  await page.getByTestId('payer-code-input').waitFor();
}

/** What a scanner does: the digits, fast, then Enter. */
async function scan(code: string): Promise<void> {
  await page.getByTestId('payer-code-input').pressSequentially(code, { delay: 5 });
  await page.keyboard.press('Enter');
}

const phase = () => page.getByTestId('payer-code-message').getAttribute('data-phase');

test('a social code scanned at the counter pays at once: "Paid with the social app"', async () => {
  await charge('18.80');
  expect(await page.getByTestId('payer-code-input').evaluate((el) => el === document.activeElement)).toBe(true);
  await scan(await codeOf('social', 'pay'));
  await page.locator('[data-testid="order-status"][data-status="finish"]').waitFor();
  expect(await page.getByTestId('pay-wallet').textContent()).toBe('Paid with the social app');
  expect(await look(page, 'pos-payer-code-paid-en-1280x800', POS_LOOK)).toEqual([]);
});

test('an Alipay code the payer confirms: waiting with the time left, then paid with Alipay', async () => {
  await charge('26.00');
  expect(await look(page, 'pos-payer-code-en-1280x800', POS_LOOK)).toEqual([]);
  const code = await codeOf('alipay', 'never');
  await scan(code);
  await page.locator('[data-testid="payer-code-message"][data-phase="waiting"]').waitFor();
  expect(await page.getByTestId('payer-code-message').textContent()).toMatch(/^Waiting for the payer to confirm on the phone \(\d+ s left\)$/);
  expect(await look(page, 'pos-payer-code-waiting-en-1280x800', POS_LOOK)).toEqual([]);
  expect((await sandboxPost(kit.url, '/payment-code/confirm', { code })).status).toBe(200);
  await page.locator('[data-testid="order-status"][data-status="finish"]').waitFor();
  expect(await page.getByTestId('pay-wallet').textContent()).toBe('Paid with Alipay');
});

test('a refused code says why and what to do, and the order stays payable by the next code', async () => {
  await charge('31.00');
  await scan(await codeOf('social', 'balance'));
  await page.locator('[data-testid="payer-code-message"][data-phase="refused"]').waitFor();
  expect(await page.getByTestId('payer-code-message').textContent()).toContain('Ask the payer to choose another card, or to pay another way.');
  expect(await look(page, 'pos-payer-code-refused-en-1280x800', POS_LOOK)).toEqual([]);
  // Something that is not a payment code is refused on the screen, without asking anyone.
  await scan('12345');
  expect(await phase()).toBe('invalid');
  await page.getByTestId('payer-code-input').fill('');
  await scan(await codeOf('alipay', 'pay'));
  await page.locator('[data-testid="order-status"][data-status="finish"]').waitFor();
  expect(await page.getByTestId('pay-wallet').textContent()).toBe('Paid with Alipay');
});

test('in Chinese too, and no console errors', async () => {
  await page.goto(`${kit.url}/pos/?lang=zh-CN`);
  await page.getByTestId('shop-name').waitFor();
  await charge('9.00');
  expect(await page.getByTestId('view-payercode').textContent()).toBe('扫付款码');
  await scan(await codeOf('social', 'balance'));
  await page.locator('[data-testid="payer-code-message"][data-phase="refused"]').waitFor();
  expect(await page.getByTestId('payer-code-message').textContent()).toContain('请付款人换一张卡');
  expect(await look(page, 'pos-payer-code-refused-zh-CN-1280x800', POS_LOOK)).toEqual([]);
  expect(problems).toEqual([]);
});
