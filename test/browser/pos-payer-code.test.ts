/**
 * "Scan the payer's code" (7.4) on the POS in Chromium against a real service: the sandbox shows a
 * payer's payment code, the cashier types it (as a scanner does: the digits, then Enter) and the
 * screen says what happens: paid with which wallet; waiting for the payer to confirm, with the
 * time left, then paid; refused, with what to do. Each state is photographed and looked at. And
 * the camera: the sandbox's barcode of a code, photographed, is what a Chromium's fake camera
 * films; Chromium on Linux has no `BarcodeDetector`, so the display reads it with ZXing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { backends } from '../../server/test/support/backends';
import { startReceiver } from '../../server/test/support/payments';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { bothWalletsFixture, sandboxPost, type PayFixture } from '../../server/test/support/payments';
import { launchChromium, launchChromiumWithCamera, watchConsole } from './chromium';
import { y4mOfPng } from './y4m';
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
async function charge(amount: string, on: Page = page): Promise<void> {
  if (await on.getByTestId('new-sale').count()) await on.getByTestId('new-sale').click();
  await typeAmount(on, amount);
  await on.getByTestId('charge-submit').click();
  await on.getByTestId('view-payercode').click();
  await on.getByTestId('payer-code-input').waitFor();
}

/** What a scanner does: the digits, fast, then Enter. */
async function scan(code: string, on: Page = page): Promise<void> {
  await on.getByTestId('payer-code-input').pressSequentially(code, { delay: 5 });
  await on.keyboard.press('Enter');
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
  expect(await page.getByTestId('payer-code-camera').textContent()).toBe('使用摄像头');
  await scan(await codeOf('social', 'balance'));
  await page.locator('[data-testid="payer-code-message"][data-phase="refused"]').waitFor();
  expect(await page.getByTestId('payer-code-message').textContent()).toContain('请付款人换一张卡');
  expect(await look(page, 'pos-payer-code-refused-zh-CN-1280x800', POS_LOOK)).toEqual([]);
  expect(problems).toEqual([]);
});

/** The sandbox's barcode of `code` (`/sandbox/payment-code.svg`), photographed on a 640×480 white frame as a camera would see it held up. */
async function photographBarcode(code: string): Promise<Buffer> {
  const shot = await context.newPage();
  try {
    await shot.setViewportSize({ width: 640, height: 480 });
    await shot.setContent(
      `<body style="margin:0;height:100vh;display:grid;place-items:center;background:#fff"><img id="code" src="${kit.url}/sandbox/payment-code.svg?code=${code}"></body>`,
    );
    await shot.locator('#code').evaluate((img: HTMLImageElement) => img.decode());
    return await shot.screenshot();
  } finally {
    await shot.close();
  }
}

test("the camera reads the payer's code with ZXing where the browser has no BarcodeDetector, and lets the camera go", async () => {
  const code = await codeOf('social', 'pay');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pos-camera-'));
  const video = path.join(dir, 'payer-code.y4m');
  fs.writeFileSync(video, y4mOfPng(await photographBarcode(code)));
  const camera = await launchChromiumWithCamera(video);
  try {
    const cashier = await (await counterContext(camera)).newPage();
    const cameraProblems = watchConsole(cashier);
    // Every camera stream the page opens, to see that each is stopped.
    await cashier.addInitScript(() => {
      const streams: MediaStream[] = [];
      (window as unknown as { cameraStreams: MediaStream[] }).cameraStreams = streams;
      const open = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
      navigator.mediaDevices.getUserMedia = async (constraints) => {
        const stream = await open(constraints);
        streams.push(stream);
        return stream;
      };
    });
    // The reader's chunk and its worker (ZXing).
    const readerLoads: string[] = [];
    cashier.on('request', (r) => {
      const load = /\/assets\/(library-(?:reader|worker))-[^/]*\.js$/.exec(r.url());
      if (load) readerLoads.push(load[1]);
    });
    // The reader's chunk is held until the screen has been looked at with the camera filming.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await cashier.route(/\/assets\/library-reader-[^/]*\.js$/, async (route) => {
      await held;
      await route.continue();
    });

    await login(cashier, kit.url, f.subId, f.pw);
    expect(await cashier.evaluate(() => 'BarcodeDetector' in window)).toBe(false);
    await charge('12.30', cashier);
    // A code refused first: starting the camera for a fresh one clears its words.
    await scan(await codeOf('alipay', 'balance'), cashier);
    await cashier.locator('[data-testid="payer-code-message"][data-phase="refused"]').waitFor();
    expect(readerLoads).toEqual([]); // the display's pages so far did not carry it
    await cashier.getByTestId('payer-code-camera').click();
    await cashier.locator('[data-testid="payer-code-camera-box"][data-state="on"]').waitFor();
    await cashier.waitForFunction(() => (document.querySelector('[data-testid="payer-code-video"]') as HTMLVideoElement | null)?.videoWidth === 640);
    expect(await cashier.getByTestId('payer-code-camera').textContent()).toBe('Stop the camera');
    expect(await cashier.locator('.payer-code .scan-hint').allTextContents()).toEqual(['Hold the payment code in front of the camera.']);
    expect(await cashier.getByTestId('payer-code-message').count()).toBe(0);
    expect(await look(cashier, 'pos-payer-code-camera-en-1280x800', POS_LOOK)).toEqual([]);

    release();
    await cashier.locator('[data-testid="order-status"][data-status="finish"]').waitFor();
    expect(await cashier.getByTestId('pay-wallet').textContent()).toBe('Paid with the social app');
    expect(readerLoads.sort()).toEqual(['library-reader', 'library-worker']);
    expect(await cashier.getByTestId('payer-code-video').count()).toBe(0);
    const tracks = await cashier.evaluate(() =>
      (window as unknown as { cameraStreams: MediaStream[] }).cameraStreams.flatMap((s) => s.getTracks().map((t) => t.readyState)),
    );
    expect(tracks).toEqual(['ended']);
    expect(cameraProblems).toEqual([]);
  } finally {
    await camera.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
