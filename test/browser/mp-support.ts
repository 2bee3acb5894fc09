/**
 * Shared by the mini-program browser tests: the H5 build (rebuilt when missing or older than its
 * sources) and the page's URL for a scene or a plain QR link. Chromium, QR decoding and console
 * watching come from pos-support.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

const MP_DIR = path.resolve(__dirname, '../../miniprogram');
const SHARED_SRC = path.resolve(__dirname, '../../shared/src');
const H5_INDEX = path.join(MP_DIR, 'dist', 'h5', 'index.html');

function newestMtime(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return /\.test\.tsx?$/.test(p) ? 0 : st.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/** Builds miniprogram/dist/h5 when it is missing or older than its sources (`npm run build` normally did it). */
export function ensureMpBuilt(): void {
  const sources = Math.max(
    newestMtime(path.join(MP_DIR, 'src')),
    newestMtime(path.join(MP_DIR, 'config')),
    // The browser-safe shared modules the page imports.
    ...['scene.ts', 'long-poll.ts', 'money.ts', 'money-format.ts', 'i18n.ts', 'errors.ts'].map((f) => newestMtime(path.join(SHARED_SRC, f))),
  );
  if (fs.existsSync(H5_INDEX) && fs.statSync(H5_INDEX).mtimeMs >= sources) return;
  const taro = [MP_DIR, path.dirname(MP_DIR)].map((d) => path.join(d, 'node_modules', '@tarojs', 'cli', 'bin', 'taro')).find((p) => fs.existsSync(p));
  if (!taro) throw new Error('@tarojs/cli is not installed; run npm install');
  execFileSync(process.execPath, [taro, 'build', '--type', 'h5'], {
    cwd: MP_DIR,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 300_000,
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

/** The page for a mini-program code's scene (URL-encoded, as the POS display's link carries it). */
export const sceneUrl = (base: string, scene: string) => `${base}/mp/#/pages/pay/index?scene=${encodeURIComponent(scene)}`;

/** The page opened from a plain QR link: the whole link URL-encoded in `q`. */
export const qUrl = (base: string, link: string) => `${base}/mp/#/pages/pay/index?q=${encodeURIComponent(link)}`;

/** Waits until the page's status shows `state` (the `data-state` of [data-testid=mp-status]). */
export async function expectState(page: Page, state: string, timeout = 15_000): Promise<void> {
  await page.locator(`[data-testid="mp-status"][data-state="${state}"]`).waitFor({ timeout });
}

export const textOf = async (page: Page, testId: string) => ((await page.getByTestId(testId).textContent()) ?? '').trim();
