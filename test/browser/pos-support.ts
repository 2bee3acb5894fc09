/** Shared by the POS browser tests: the built display, a counter-sized context, logging in and typing amounts. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

const POS_DIR = path.resolve(__dirname, '../../pos-display');
const DIST_INDEX = path.join(POS_DIR, 'dist', 'index.html');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (!/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds pos-display/dist when it is missing or older than its sources (`npm run build` normally did it). */
export function ensurePosBuilt(): void {
  const sources = Math.max(
    newestMtime(path.join(POS_DIR, 'src')),
    fs.statSync(path.join(POS_DIR, 'index.html')).mtimeMs,
    // The shared modules the display imports (money format, languages, errors…).
    newestMtime(path.resolve(POS_DIR, '../shared/src')),
  );
  if (fs.existsSync(DIST_INDEX) && fs.statSync(DIST_INDEX).mtimeMs >= sources) return;
  const vite = [POS_DIR, path.dirname(POS_DIR)].map((d) => path.join(d, 'node_modules', 'vite', 'bin', 'vite.js')).find((p) => fs.existsSync(p));
  if (!vite) throw new Error('vite is not installed; run npm install');
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: POS_DIR, stdio: 'inherit', timeout: 180_000 });
}

/** A fresh context (its own cookies and storage) with a counter-screen viewport. */
export function counterContext(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<BrowserContext> {
  return browser.newContext({ viewport, deviceScaleFactor: 1 });
}

export async function login(page: Page, baseUrl: string, userId: string, pw: string): Promise<void> {
  await page.goto(`${baseUrl}/pos/`);
  await page.getByTestId('login-user').fill(userId);
  await page.getByTestId('login-pw').fill(pw);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('shop-name').waitFor();
}

/** Types an amount on the on-screen keypad. */
export async function typeAmount(page: Page, amount: string): Promise<void> {
  for (const ch of amount) await page.getByTestId(`key-${ch}`).click();
}
