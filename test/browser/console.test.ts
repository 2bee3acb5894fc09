/**
 * The merchant console in Debian Chromium against a real service: a parent merchant logs in and
 * sees its sub-merchant's orders, finds one by its prepay id, reads its timeline after a payment
 * whose first callback attempts failed, resends a given-up callback that then reaches the
 * receiver, and refunds with a confirmation; reads a reconciled day's differences (made by the
 * sandbox's bill faults) and goes to an order from one; then every screen in both languages at 1280×800,
 * 1024×768 and 390×844, measured and saved as screenshots.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { newOrder, payByCode, payFixture, startReceiver, type PayFixture } from '../../server/test/support/payments';
import { chinaDate } from '../../server/src/reconciliation/china-day';
import { launchChromium, watchConsole } from './chromium';
import { look, screenshotDir, type LookOptions, type Problem } from './look';
import { waitFor } from '../../server/test/support/wait';

jest.setTimeout(180_000);

const CONSOLE_DIR = path.resolve(__dirname, '../../console');
const CONSOLE_LOOK: LookOptions = {
  oneLine: 'button:not(.order-row):not(.recon-day), .money, .chip, .id, .at, .http',
  primary: 'button.primary, button.danger',
};
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
  { width: 390, height: 844 },
];

/** Builds console/dist when it is missing (`npm run build` normally did it). */
function ensureConsoleBuilt(): void {
  if (fs.existsSync(path.join(CONSOLE_DIR, 'dist', 'index.html')) && process.env.CONSOLE_REBUILD !== '1') return;
  const vite = [CONSOLE_DIR, path.dirname(CONSOLE_DIR)].map((d) => path.join(d, 'node_modules', 'vite', 'bin', 'vite.js')).find((p) => fs.existsSync(p));
  if (!vite) throw new Error('vite is not installed; run npm install');
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: CONSOLE_DIR, stdio: 'inherit', timeout: 180_000 });
}

let browser: Browser;
const backend = backends()[0];
let kit: TestKit;
let f: PayFixture;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Order A: its first two callback attempts fail, then it is delivered. Order B: the receiver refuses it until `bUp`. */
let orderA = '';
let orderB = '';
let bUp = false;
/** CALLBACK_RETRY_SCHEDULE's every wait: the service's clock is moved to each attempt, not waited for. */
const CALLBACK_RETRY_MS = 150;
/** SANDBOX_REFUND_DELAY: from a refund accepted by the sandbox's platform to its completion and notification. */
const REFUND_DELAY_MS = 200;

beforeAll(async () => {
  ensureConsoleBuilt();
  fs.mkdirSync(screenshotDir(), { recursive: true });
  browser = await launchChromium();
  kit = await startTestKit(backend, {
    CALLBACK_RETRY_SCHEDULE: Array(12).fill(`${CALLBACK_RETRY_MS}ms`).join(','),
    SANDBOX_REFUND_DELAY: `${REFUND_DELAY_MS}ms`,
  });
  const triesA = { n: 0 };
  receiver = await startReceiver((r) => {
    const id = JSON.parse(r.body).prepayId;
    if (id === orderA && JSON.parse(r.body).status === 'finish' && ++triesA.n <= 2) return { status: 500, body: 'database down' };
    if (id === orderB && !bUp) return { status: 503, body: 'maintenance' };
    return { body: 'OK' };
  });
  f = await payFixture(kit, { notifyCallbackUrl: `${receiver.url}/hooks/kit` });
  orderA = await newOrder(f, '1234.50');
  orderB = await newOrder(f, '8.00');
  // The callbacks' series run on the service's clock, moved to each next attempt: A's two failures, B's thirteen.
  kit.clock.freeze();
  try {
    await payByCode(kit, f, orderA);
    await payByCode(kit, f, orderB);
    const state = async (id: string) => (await f.client.callbacks({ prepayId: id })).data.items[0]?.state;
    await followCallbacks(async () => (await state(orderA)) === 'delivered' && (await state(orderB)) === 'given_up', 'A delivered and B given up');
  } finally {
    kit.clock.resume();
  }
});

/** Moves the service's clock to each next attempt of a callback (CALLBACK_RETRY_SCHEDULE) and lets it run, until `check` holds. */
function followCallbacks(check: () => Promise<boolean>, what: string): Promise<boolean> {
  return waitFor(async () => {
    if (await check()) return true;
    const next = await kit.runtime.db.db
      .selectFrom('jobs')
      .select('next_at')
      .where('queue', '=', 'callback')
      .where('state', '=', 'pending')
      .where('lease_token', 'is', null)
      .orderBy('next_at')
      .executeTakeFirst();
    if (next) kit.clock.advanceTo(next.next_at);
    await kit.settle();
    return false;
  }, what);
}
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await kit?.close();
  await backend.cleanup();
});

async function open(viewport = SIZES[0]): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  return { context, page, problems: watchConsole(page) };
}

async function login(page: Page, lang: string, userId = f.parentId, pw = f.pw): Promise<void> {
  await page.goto(`${kit.url}/console/?lang=${lang}`);
  await page.getByTestId('console-login-id').fill(userId);
  await page.getByTestId('console-login-pw').fill(pw);
  await page.getByTestId('console-login-submit').click();
  await page.getByTestId('console-tab-orders').waitFor();
}

const row = (page: Page, prepayId: string): Locator => page.getByTestId('console-order-row').filter({ hasText: prepayId });
const callbackCard = (page: Page, prepayId: string): Locator => page.getByTestId('console-callback').filter({ hasText: prepayId });

describe('merchant console in Chromium', () => {
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    ({ context, page, problems } = await open());
  });
  afterAll(() => context?.close());

  it('refuses a wrong password, then logs the parent merchant in; its sub-merchant’s orders are listed', async () => {
    await page.goto(`${kit.url}/console/?lang=en`);
    await page.getByTestId('console-login-id').fill(f.parentId);
    await page.getByTestId('console-login-pw').fill('wrong password');
    await page.getByTestId('console-login-submit').click();
    await expect(page.getByTestId('console-login-message').textContent()).resolves.toBe('Wrong merchant id or password.');
    // The refused login's 401 is the browser's console line for that answer, not a fault of the page.
    problems.length = 0;
    await page.getByTestId('console-login-pw').fill(f.pw);
    await page.getByTestId('console-login-submit').click();
    await row(page, orderA).waitFor();
    await row(page, orderB).waitFor();
    expect(await page.getByTestId('console-order-row').count()).toBe(2);
    expect(await row(page, orderA).textContent()).toContain('¥1,234.50');
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect((await context.cookies()).find((c) => c.name === 'console_login')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
  });

  it('finds an order by its prepay id and shows its timeline with every callback attempt', async () => {
    await page.getByTestId('console-search').fill(orderA);
    await page.getByTestId('console-search-submit').click();
    await waitFor(async () => (await page.getByTestId('console-order-row').count()) === 1, 'one row');
    await row(page, orderA).click();
    await page.getByTestId('console-timeline').waitFor();
    const kinds = await page.getByTestId('console-event').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    expect(kinds).toEqual(expect.arrayContaining(['created', 'channelOrder', 'paid', 'callback']));
    expect(kinds.indexOf('created')).toBeLessThan(kinds.indexOf('paid'));
    // How the kit learned of the payment: A's notification came at once.
    expect(await page.locator('[data-testid="console-event"][data-kind="paid"]').textContent()).toMatch(
      /Paid at the channel \(Social app payments, transaction 4200\d+\): learned from its payment notification$/,
    );
    const attempts = await page.getByTestId('console-attempt').allTextContents();
    expect(attempts).toHaveLength(3);
    expect(attempts[0]).toContain('HTTP 500');
    expect(attempts[0]).toContain('database down');
    expect(attempts[2]).toContain('HTTP 200');
    expect(await page.getByTestId('console-callback-state').textContent()).toBe('delivered');
  });

  it('lists given-up callbacks first and resends one that then reaches the receiver', async () => {
    await page.getByTestId('console-tab-callbacks').click();
    await callbackCard(page, orderB).waitFor();
    const first = page.getByTestId('console-callback').first();
    expect(await first.textContent()).toContain(orderB);
    expect(await first.getByTestId('console-callback-state').textContent()).toBe('given up');
    expect(await first.getByTestId('console-attempt').count()).toBe(13);
    expect(await look(page, 'console-callbacks-given-up-en-1280x800', CONSOLE_LOOK)).toEqual([]);
    bUp = true;
    const before = receiver.received.length;
    await first.getByTestId('console-resend').click();
    await waitFor(() => receiver.received.slice(before).some((r) => JSON.parse(r.body).prepayId === orderB), 'B at the receiver');
    // The resend says what became of it: delivered, with the backend's own answer.
    await waitFor(
      async () => /Resent, and delivered at .*HTTP 200 “OK”/.test((await page.getByTestId('console-resend-outcome').first().textContent()) ?? ''),
      'resend outcome',
    );
    expect(await look(page, 'console-callbacks-resent-en-1280x800', CONSOLE_LOOK)).toEqual([]);
    // The view reloads after the resend; refresh until the new attempt shows.
    await waitFor(async () => {
      await page.getByTestId('console-callbacks-refresh').click();
      const card = callbackCard(page, orderB);
      return (await card.getByTestId('console-callback-state').textContent()) === 'delivered' && (await card.getByTestId('console-attempt').count()) === 14;
    }, 'B delivered on screen');
    expect(await callbackCard(page, orderB).getByTestId('console-attempt').last().textContent()).toContain('HTTP 200');
    expect(receiver.received.filter((r) => JSON.parse(r.body).prepayId === orderB)).toHaveLength(14);
  });

  it('refunds from the order page after a confirmation', async () => {
    await page.goto(`${kit.url}/console/?lang=en#/orders/${orderA}`);
    await page.getByTestId('console-refund').click();
    const confirm = page.getByTestId('console-refund-confirm');
    expect(await confirm.textContent()).toContain('Refund ¥1,234.50 in full');
    await page.getByTestId('console-refund-no').click();
    expect(await confirm.count()).toBe(0);
    await page.getByTestId('console-refund').click();
    await page.getByTestId('console-refund-yes').click();
    // Accepted by the sandbox's platform, then done (and notified) once its delay has passed: the service's clock moved past it.
    const refundState = async () => (await kit.runtime.services.payments.state(orderA)).refund?.state;
    await waitFor(async () => ['accepted', 'success'].includes((await refundState()) ?? ''), 'the refund accepted');
    await kit.advance(REFUND_DELAY_MS);
    await waitFor(async () => {
      await page.getByTestId('console-refresh').click();
      return (await page.getByTestId('console-order-status').textContent()) === 'Refunded';
    }, 'refunded on screen');
    expect(await page.getByTestId('console-refund').count()).toBe(0);
    await waitFor(
      async () => (await page.getByTestId('console-event').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).includes('refundCompleted'),
      'refund on the timeline',
    );
    expect(problems).toEqual([]);
  });
});

describe('the development receiver in the console', () => {
  it('shows what /sandbox/receiver got for the login’s merchants, with its signature check', async () => {
    const shop = await payFixture(kit, { notifyCallbackUrl: `${kit.url}/sandbox/receiver` });
    const prepayId = await newOrder(shop, '3.30');
    await payByCode(kit, shop, prepayId);
    await waitFor(async () => (await shop.client.callbacks({ prepayId })).data.items[0]?.state === 'delivered', 'delivered to the receiver');
    const { context, page, problems } = await open(SIZES[0]);
    try {
      await login(page, 'en', shop.parentId, shop.pw);
      await page.getByTestId('console-tab-callbacks').click();
      const got = page.getByTestId('console-received').filter({ hasText: prepayId });
      await got.waitFor();
      expect(await got.textContent()).toContain('signature: ok');
      // Only this login's merchants: the other shop's callbacks never went there, and others' would not show.
      expect(await page.getByTestId('console-received').count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('does not tell a login whose callbacks go to its own endpoint (--callback) that they go to the receiver, in either language', async () => {
    // `f`'s payment parameters name its own receiver, as `demo create --callback URL` does.
    for (const [lang, claim] of [
      ['en', 'sends its callbacks there'],
      ['zh-CN', '演示商户的回调发到这里'],
    ] as const) {
      const { context, page, problems } = await open(SIZES[0]);
      try {
        await login(page, lang);
        await page.getByTestId('console-tab-callbacks').click();
        const lead = (await page.getByTestId('console-receiver-lead').textContent())!;
        expect(lead).not.toContain(claim);
        // What is true whatever the parameters say: which callbacks come here.
        expect(lead).toContain('notifyCallbackUrl');
        expect(lead).toContain('--callback');
        await page.getByTestId('console-receiver').scrollIntoViewIfNeeded();
        expect(await look(page, `console-receiver-lead-${lang}-1280x800`, CONSOLE_LOOK)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});

describe('the console under a base path', () => {
  it('logs in at /kit/console/ with its cookie scoped there and lists the orders', async () => {
    const based = await startTestKit(backend, { BASE_PATH: '/kit' });
    const { context, page, problems } = await open(SIZES[1]);
    try {
      const shop = await payFixture(based);
      const prepayId = await newOrder(shop, '4.56');
      await page.goto(`${based.url}/console/?lang=en`);
      await page.getByTestId('console-login-id').fill(shop.subId);
      await page.getByTestId('console-login-pw').fill(shop.pw);
      await page.getByTestId('console-login-submit').click();
      await row(page, prepayId).waitFor();
      expect((await context.cookies()).find((c) => c.name === 'console_login')).toMatchObject({ path: '/kit/console' });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await based.close();
    }
  });
});

describe('the reconciliation view', () => {
  it('lists the reconciled day with its counts, shows its differences open first, and links to the order the kit knows', async () => {
    const setFaults = async (faults: object) => {
      const res = await fetch(`${kit.url}/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
      expect(res.status).toBe(200);
    };
    const changed = await newOrder(f, '12.00');
    const omitted = await newOrder(f, '13.00');
    for (const id of [changed, omitted]) {
      await payByCode(kit, f, id);
      expect((await f.client.waitForPayment(id)).status).toBe('finish');
    }
    const tradeNo = async (id: string) => (await kit.runtime.services.payments.state(id)).channelOrders[0].out_trade_no;
    const today = chinaDate(Date.now());
    await setFaults({ billExtraPayments: 1, billAmountChanged: [await tradeNo(changed)], billOmitted: [await tradeNo(omitted)] });
    try {
      await kit.runtime.services.reconciliation.reconcile(today, 'SocialNative');
    } finally {
      await setFaults({});
    }

    const { context, page, problems } = await open(SIZES[0]);
    try {
      await login(page, 'en');
      await page.getByTestId('console-tab-reconciliation').click();
      const day = page.getByTestId('console-recon-day').first();
      await day.waitFor();
      expect(await day.getAttribute('data-date')).toBe(today);
      const counts = await day.textContent();
      for (const part of [
        'Social app payments',
        'reconciled',
        '2 open',
        'amount differs: 1',
        'only in the kit: 1',
        'only at the channel: 1',
        'awaiting next day: 1',
      ]) {
        expect(counts).toContain(part);
      }
      await day.click();
      await page.getByTestId('console-recon-diff').first().waitFor();
      expect(await page.evaluate(() => location.hash)).toBe(`#/reconciliation/${today}`);
      const resolutions = await page.getByTestId('console-recon-diff').evaluateAll((els) => els.map((e) => e.getAttribute('data-resolution')));
      expect(resolutions).toEqual(['open', 'open', 'pending_next_day']);
      // The login's share of the bill, as the service counts it, at the bill's amounts (12.01 for the changed order).
      const [social] = await kit.runtime.services.reconciliation.forMerchants([f.parentId, f.subId], today);
      const totals = page.getByTestId('console-recon-totals').first();
      const shown = async (what: string) => (await totals.locator(`[data-total="${what}"] dd`).textContent())!.replace(/[\s,]/g, '');
      expect(await shown('payments')).toBe(`${social.totals.payments.count}×¥${social.totals.payments.amount}`);
      expect(await shown('net')).toBe(`¥${social.totals.net}`);
      expect(social.totals.payments.count).toBeGreaterThanOrEqual(2);
      const amount = page.locator('[data-testid="console-recon-diff"][data-kind="amount_mismatch"]');
      expect(await amount.textContent()).toContain(await tradeNo(changed));
      expect(await amount.getByTestId('console-recon-kit').textContent()).toBe('KitPaid¥12.00');
      expect(await amount.getByTestId('console-recon-channel').textContent()).toBe('ChannelPaid¥12.01');
      // Each kind found is explained on the page, not by a path into the repository.
      const explained = await page.getByTestId('console-recon-explain').textContent();
      expect(explained).toContain('Both sides have the payment, for different amounts.');
      expect(explained).toContain('The bill has a payment or refund this service has no record of.');
      expect(await page.locator('body').textContent()).not.toContain('docs/reconciliation.md');
      const elsewhere = page.locator('[data-testid="console-recon-diff"][data-kind="channel_only"]');
      expect(await elsewhere.getByTestId('console-recon-kit').textContent()).toBe('Kitno record');
      expect(await elsewhere.getByTestId('console-recon-order').count()).toBe(0);
      await amount.getByTestId('console-recon-order').click();
      await page.getByTestId('console-timeline').waitFor();
      expect(await page.evaluate(() => location.hash)).toBe(`#/orders/${changed}`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('Reconcile now', () => {
  it('reconciles a day that was not, from its page, and today from the list, as the daily run would', async () => {
    const day = chinaDate(Date.now() - 5 * 86_400_000);
    const { context, page, problems } = await open(SIZES[0]);
    try {
      await login(page, 'en');
      await page.goto(`${kit.url}/console/?lang=en#/reconciliation/${day}`);
      const message = page.getByTestId('console-recon-message');
      await message.waitFor();
      expect(await message.textContent()).toBe('This day has not been reconciled yet.');
      await page.getByTestId('console-reconcile-run').click();
      await page.getByTestId('console-recon-report').first().waitFor();
      // One outcome, and one report, per channel with a bill (the sandbox plays Alipay too), each named.
      expect(await page.getByTestId('console-reconcile-result').textContent()).toBe('Social app payments: reconciled.Alipay: reconciled.');
      expect(await page.locator('[data-testid="console-recon-report"] h2.channel').allTextContents()).toEqual(['Social app payments', 'Alipay']);
      expect(await message.count()).toBe(0);
      expect(await look(page, 'console-reconcile-day-en-1280x800', CONSOLE_LOOK)).toEqual([]);

      await page.getByTestId('console-recon-back').click();
      const now = page.getByTestId('console-reconcile-now');
      await now.waitFor();
      expect(await page.getByTestId('console-reconcile-day').getAttribute('data-day')).toBe(chinaDate(Date.now()));
      await page.getByTestId('console-reconcile-run').click();
      await page.getByTestId('console-reconcile-result').waitFor();
      // One outcome per channel with a bill (the sandbox plays Alipay too).
      expect(await page.getByTestId('console-reconcile-result').textContent()).toBe('Social app payments: reconciled.Alipay: reconciled.');
      expect(await page.locator(`[data-testid="console-recon-day"][data-date="${day}"]`).count()).toBe(2);
      expect(await look(page, 'console-reconcile-now-en-1280x800', CONSOLE_LOOK)).toEqual([]);
      await page.getByTestId('console-reconcile-open').click();
      await page.getByTestId('console-recon-report').first().waitFor();
      expect(await page.evaluate(() => location.hash)).toBe(`#/reconciliation/${chinaDate(Date.now())}`);
      // The day not reconciled yet was a 404 on purpose: the browser logs that answer, the page does not fail.
      expect(problems.filter((p) => !/status of 404/.test(p))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('console screens in both languages at every size', () => {
  it('has nothing wrapped, clipped or wider than the screen', async () => {
    const found: Problem[] = [];
    for (const lang of ['zh-CN', 'en']) {
      for (const size of SIZES) {
        const { context, page, problems } = await open(size);
        const name = (screen: string) => `console-${screen}-${lang}-${size.width}x${size.height}`;
        try {
          await page.goto(`${kit.url}/console/?lang=${lang}`);
          await page.getByTestId('console-login-id').waitFor();
          found.push(...(await look(page, name('login'), CONSOLE_LOOK)));
          await login(page, lang);
          await row(page, orderA).waitFor();
          found.push(...(await look(page, name('orders'), CONSOLE_LOOK)));
          // A report's columns, and the day the language's way (not the browser's mm/dd/yyyy).
          if (size.width > 640) {
            expect(await page.locator('.orders-table th').allTextContents()).toEqual(
              lang === 'en' ? ['Created', 'Prepay id', 'Shop', 'Status', 'Wallet', 'Amount'] : ['创建时间', '预支付单号', '门店', '状态', '钱包', '金额'],
            );
          }
          expect(await page.getByTestId('console-day').textContent()).toMatch(
            lang === 'en' ? /^[A-Z][a-z]{2}, [A-Z][a-z]{2} \d{1,2}, \d{4}$/ : /^\d{4}年\d{1,2}月\d{1,2}日周.$/,
          );
          if (size.width > 640) expect(await row(page, orderA).textContent()).toContain('Corner Shop');
          await row(page, orderA).click();
          await page.getByTestId('console-attempt').first().waitFor();
          found.push(...(await look(page, name('order'), CONSOLE_LOOK)));
          if (lang === 'zh-CN') expect(await page.locator('[data-testid="console-event"][data-kind="paid"]').textContent()).toContain('由支付通知得知');
          // The channel's words are translated too (the trade type NATIVE is a scan code).
          if (lang === 'zh-CN')
            expect(await page.locator('[data-testid="console-event"][data-kind="channelOrder"]').textContent()).toContain('渠道下单：扫码支付');
          await page.getByTestId('console-tab-callbacks').click();
          await page.getByTestId('console-attempt').first().waitFor();
          found.push(...(await look(page, name('callbacks'), CONSOLE_LOOK)));
          await page.getByTestId('console-tab-reconciliation').click();
          await page.getByTestId('console-recon-day').first().waitFor();
          found.push(...(await look(page, name('reconciliation'), CONSOLE_LOOK)));
          await page.getByTestId('console-recon-day').first().click();
          await page.getByTestId('console-recon-diff').first().waitFor();
          found.push(...(await look(page, name('reconciliation-day'), CONSOLE_LOOK)));
          if (lang === 'zh-CN') expect(await page.getByTestId('console-recon-resolution').first().textContent()).toBe('待处理');
          if (lang === 'zh-CN') expect(await page.getByTestId('console-tab-orders').textContent()).toBe('订单');
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      }
    }
    expect(found).toEqual([]);
  });
});
