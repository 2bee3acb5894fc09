/**
 * Points mode in Debian Chromium against a real service and its ledger: the deduction QR is
 * decoded from screenshots, changes every 5 s, each content redeems (chainPay upload + lookup)
 * within its 20 s, an expired one does not, and leaving the screen stops the refresh. The page's
 * clock is the test's (Playwright's `page.clock`): its 5 s and its countdown are run, not waited
 * out; the service's (`kit.advance`) stands still and runs with it, so that a code's 20 s are the
 * page's 20 s however slow the machine.
 */
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { payFixture, type PayFixture } from '../../server/test/support/payments';
import { i2c, settle, upload } from '../../server/test/api/chain-helpers';
import { decodeQr, launchChromium, watchConsole } from './chromium';
import { counterContext, ensurePosBuilt, login } from './pos-support';

const backend = backends()[0];
let browser: Browser;
let kit: TestKit;
let f: PayFixture;
let context: BrowserContext;
let page: Page;
let problems: string[];
/** Every request for a code, in the order the display sent them. */
const codeCalls: Request[] = [];

beforeAll(async () => {
  ensurePosBuilt();
  browser = await launchChromium();
  kit = await startTestKit(backend, {});
  f = await payFixture(kit);
  expect((await upload(f.client, [{ type: 'points.create', args: { id: 'type-pts', tokenId: 'PTS', name: 'Shop points' } }])).body.status).toBe('pending');
  await settle(f.client, [i2c('points.create', 'type-pts')]);
  expect(
    (await upload(f.client, [{ type: 'points.issue', args: { id: 'issue-alice', tokenId: 'PTS', userAppId: f.appId, userId: 'alice', amount: '100' } }])).body
      .status,
  ).toBe('pending');
  expect((await settle(f.client, [i2c('points.issue', 'issue-alice')]))[0].id).not.toBe('');
  context = await counterContext(browser);
  page = await context.newPage();
  // The display's timers (the 5 s refresh, the countdown's ticks) on a clock the test runs.
  await page.clock.install();
  problems = watchConsole(page);
  page.on('request', (r: Request) => {
    if (r.url().endsWith('/pos/api/points/code')) codeCalls.push(r);
  });
  await login(page, kit.url, f.subId, f.pw);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await kit?.close();
  await backend.cleanup();
});

/** The latest time the test moved the page's clock to (a reload starts the page's own `Date.now()` afresh, behind it). */
let pageTime = 0;

/**
 * Stops the page's clock a minute on from the latest it was (no points session runs when this is
 * called): nothing the display schedules happens until the test runs the clock (`runPage`).
 */
async function pausePage(): Promise<void> {
  pageTime = Math.max(await page.evaluate(() => Date.now()), pageTime) + 60_000;
  await page.clock.pauseAt(pageTime);
}

/**
 * Runs the service's clock (frozen by the first test), then the page's by as much: a code's 20 s pass on both as
 * they would in a shop, and a code the page asks for as its clock runs is made at the service's new time.
 */
async function runPage(ms: number): Promise<void> {
  await kit.advance(ms);
  await page.clock.runFor(ms);
  pageTime += ms;
}

/** The next request for a code to end: answered (true), or failed by the display's own time limit or with a 5xx (false). */
function codeCallEnded(): Promise<boolean> {
  return new Promise((resolve) => {
    const end = (r: Request, ok: boolean | Promise<boolean>) => {
      if (!r.url().endsWith('/pos/api/points/code')) return;
      page.off('requestfinished', finished);
      page.off('requestfailed', failed);
      resolve(ok);
    };
    const finished = (r: Request) =>
      end(
        r,
        r.response().then((res) => (res?.status() ?? 500) < 500),
      );
    const failed = (r: Request) => end(r, false);
    page.on('requestfinished', finished);
    page.on('requestfailed', failed);
  });
}

/**
 * Runs the page's clock by `ms` to the display's next refresh and waits until that refresh's request
 * ended. A refresh that failed is the display's to retry 5 s later, as on a cashier's slow network
 * (the display gives the service 15 s of real time, which a loaded machine can take): that one is
 * run too, until one is answered. Answers how many requests it took.
 */
async function refreshAfter(ms: number): Promise<number> {
  for (let attempts = 1; attempts <= 4; attempts++) {
    const ended = codeCallEnded();
    await runPage(attempts === 1 ? ms : 5_000);
    if (await ended) return attempts;
  }
  throw new Error('four refreshes in a row failed');
}

/**
 * Waits for the code with the given serial (or, with `orLater`, any later one) and decodes it;
 * returns when it appeared on screen.
 */
async function codeNumber(serial: number, orLater = false): Promise<{ content: string }> {
  await page.waitForFunction(
    ([n, later]) => {
      const shown = Number(document.querySelector('[data-testid="points-countdown"]')?.getAttribute('data-serial') ?? 0);
      return later ? shown >= n : shown === n;
    },
    [serial, orLater] as const,
    { polling: 20 },
  );
  await page.getByTestId('points-qr').waitFor();
  return { content: await decodeQr(page.getByTestId('points-qr')) };
}

/** Redeems a code as the customer's app does: uploaded, then sealed (the service's clock stands still: its due work is run). */
async function redeem(id: string, code: string, amount: string): Promise<Record<string, string>> {
  const up = await upload(f.client, [{ type: 'chainPay', args: { id, code, amount } }]);
  expect(up.body.status).toBe('pending');
  await kit.settle();
  const [result] = await settle(f.client, [i2c('chainPay', id)]);
  return result;
}

async function startPoints(maxAmount: string) {
  await page.getByTestId('points-user').fill('alice');
  await page.getByTestId('points-token').fill('PTS');
  await page.getByTestId('points-max').fill(maxAmount);
  await page.getByTestId('points-start').click();
}

const balanceShown = async () => (await page.getByTestId('points-balance').textContent())?.trim();

it('shows the balance and a deduction code that changes every 5 s; an earlier code still redeems within its 20 s', async () => {
  await page.getByTestId('tab-points').click();
  await page.getByTestId('points-user').fill('alice');
  await page.getByTestId('points-token').fill('PTS');
  await page.getByTestId('points-check').click();
  await page.getByTestId('points-form-balance').waitFor();
  expect(await page.getByTestId('points-form-balance').textContent()).toBe('Balance: 100\u00a0points');

  // From here the page's time and the service's move only when the test runs them: the first code is asked for at a
  // known moment, and its age when redeemed is what the page ran, however slow the machine.
  kit.clock.freeze();
  await pausePage();
  await startPoints('30');
  const c1 = await codeNumber(1);
  expect(await balanceShown()).toBe('100\u00a0points');
  // The countdown is to the next code, which the screen says comes every 5 s (never the code's own 20 s of validity).
  expect(await page.getByTestId('points-countdown').textContent()).toBe('New code in 5 s');
  expect(await page.getByTestId('points-countdown').getAttribute('data-kind')).toBe('next');
  // The next code is asked for 5 s after the last was: not a moment before.
  const asked = codeCalls.length;
  await runPage(4_999);
  expect(codeCalls.length).toBe(asked);
  const attempts = await refreshAfter(1);
  const c2 = await codeNumber(2);
  expect(codeCalls.length).toBe(asked + attempts);
  await refreshAfter(5_000);
  const c3 = await codeNumber(3);
  expect(new Set([c1.content, c2.content, c3.content]).size).toBe(3);
  // The countdown runs down to the next code: 3.5 s after one arrived it says 2, while the code itself is valid 15 s more or so.
  await runPage(3_500);
  const countdown = page.getByTestId('points-countdown');
  expect(await countdown.getAttribute('data-serial')).toBe('3');
  expect(await countdown.getAttribute('data-seconds')).toBe('2');
  expect(Number(await countdown.getAttribute('data-valid'))).toBeGreaterThanOrEqual(15);

  // The first code, no longer on screen, redeems within its 20 s.
  const result = await redeem('pay-c1', c1.content, '12.5');
  expect(result.id).toMatch(/^[0-9a-f]{64}$/);
  // The display notices the deduction at its next code, and stops.
  await refreshAfter(5_000);
  await page.getByTestId('points-done').waitFor();
  expect(await page.getByTestId('points-before').textContent()).toBe('100\u00a0points');
  expect(await page.getByTestId('points-after').textContent()).toBe('87.50000\u00a0points');
});

it('a new customer session gets a new uuid: its newest code redeems too', async () => {
  await page.clock.resume();
  await page.getByRole('button', { name: 'Next customer' }).click();
  // The next customer starts blank; the shop's point type stays, also after a reload.
  expect(await page.getByTestId('points-user').inputValue()).toBe('');
  expect(await page.getByTestId('points-max').inputValue()).toBe('');
  // (A reload starts the display afresh: its code serials count from 1 again.)
  await page.reload();
  await page.getByTestId('points-user').waitFor();
  expect(await page.getByTestId('points-token').inputValue()).toBe('PTS');
  // A scanner types the member code and Enter: the balance shows, the cashier enters the points.
  expect(await page.getByTestId('points-user').evaluate((el) => el === document.activeElement)).toBe(true);
  await page.keyboard.type('alice');
  await page.keyboard.press('Enter');
  await page.getByTestId('points-form-balance').waitFor();
  expect(await page.getByTestId('points-form-balance').textContent()).toBe('Balance: 87.50000\u00a0points');
  expect(await page.getByTestId('points-max').evaluate((el) => el === document.activeElement)).toBe(true);
  await page.keyboard.type('10');
  await pausePage();
  await page.getByTestId('points-start').click();
  const d1 = await codeNumber(1);
  await refreshAfter(5_000);
  const d2 = await codeNumber(2);
  expect(d2.content).not.toBe(d1.content);
  expect((await redeem('pay-d2', d2.content, '10')).id).toMatch(/^[0-9a-f]{64}$/);
  await refreshAfter(5_000);
  await page.getByTestId('points-done').waitFor();
  expect(await page.getByTestId('points-before').textContent()).toBe('87.50000\u00a0points');
  expect(await page.getByTestId('points-after').textContent()).toBe('77.50000\u00a0points');
  // Same session, so the same (now spent) uuid: the earlier code is refused.
  expect(await redeem('pay-d1', d1.content, '1')).toEqual({});
});

it('stops refreshing when the points screen is left, and a code older than 20 s no longer redeems', async () => {
  await page.getByRole('button', { name: 'Next customer' }).click();
  await pausePage();
  await startPoints('5');
  // The display's serials go on from the session before (two codes): this session's first is the third.
  const e1 = await codeNumber(3);
  await page.getByTestId('tab-charge').click();
  await page.getByTestId('charge-submit').waitFor();
  const callsWhenLeft = codeCalls.length;
  // Long past the next code's time on the page's clock, and past the code's 20 s on the service's.
  await runPage(21_000);
  expect(codeCalls.length).toBe(callsWhenLeft);
  expect(await redeem('pay-e1', e1.content, '1')).toEqual({});
  const bal = await f.client.call<{ data: { balance: string } }>('GET', '/fungible-token/balance', {
    query: { tokenId: 'PTS', tokenAppId: f.appId, userAppId: f.appId, userId: 'alice' },
  });
  expect(bal.body.data.balance).toBe('77.50000');
});

it('logged no console errors', () => {
  expect(problems).toEqual([]);
});
