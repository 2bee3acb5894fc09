/**
 * What the two suites that look at every screen share (`screens-pos.test.ts`: the POS display;
 * `screens-payer.test.ts`: the payer page): the languages and the largest amount, a service with
 * its sandbox and a shop whose orders are placed with profit sharing, Chromium, and how problems
 * are reported. Two suites, so that Jest's workers draw the two front ends side by side.
 */
import { execFileSync } from 'node:child_process';
import type { Browser } from 'playwright-core';
import type { Lang } from '@kit/shared/i18n';
import { backends, type Backend } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { payFixture, type PayFixture } from '../../server/test/support/payments';
import { launchChromium } from './chromium';
import { resetScreenshots, type Problem } from './look';

export const LANGS: Lang[] = ['en', 'zh-CN'];
export const LARGEST = '1000000.00';
export const PARTNER = { type: 'MERCHANT_ID', account: '1900000501', name: 'Partner Trading Co', relationType: 'PARTNER' } as const;

export const label = (size: { width: number; height: number }) => `${size.width}x${size.height}`;

export interface ScreensRig {
  backend: Backend;
  browser: Browser;
  kit: TestKit;
  f: PayFixture;
  close(): Promise<void>;
}

/**
 * A service (with `env`), its fixture shop and Chromium, after removing the earlier screenshots
 * whose names start with `prefix` (the other suite's stay: the two may run at the same time).
 */
export async function startScreens(prefix: string, env: NodeJS.ProcessEnv = {}): Promise<ScreensRig> {
  // Without CJK fonts Chromium draws the Chinese screens as empty boxes: nothing worth measuring.
  const cjk = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim();
  if (!cjk) throw new Error('No Chinese font is installed: apt-get install fonts-noto-cjk (.ci/run does it)');
  const dir = resetScreenshots(prefix);
  process.stdout.write(`Screenshots of every screen: ${dir}\n`);
  const backend = backends()[0];
  const browser = await launchChromium();
  const kit = await startTestKit(backend, env);
  const f = await payFixture(kit);
  // Orders of this shop are placed with profit sharing, so the orders list shows its chip.
  await kit.runtime.services.merchants.setContracted(f.parentId, true);
  await f.client.setPaymentParams(f.parentId, 'SocialNative', { profitSharing: true });
  await f.client.addProfitSharingReceiver({ merchantId: f.parentId, ...PARTNER });
  return {
    backend,
    browser,
    kit,
    f,
    async close() {
      await browser.close();
      await kit.close();
      await backend.cleanup();
    },
  };
}

/** Problems are gathered per test and shown together, after every screenshot was saved. */
export function expectNoProblems(problems: Problem[]): void {
  expect(problems.map((p) => `${p.screen}: ${p.what}`)).toEqual([]);
}
