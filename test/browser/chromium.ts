/**
 * Shared by every browser test: Debian Chromium through playwright-core with the flags this machine
 * needs, console watching, and QR decoding from element screenshots (jsqr + pngjs, one code each).
 */
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * Chromium's fake camera: every page is granted the camera without a prompt, and the camera films
 * `videoFile` (YUV4MPEG2 or MJPEG, looped) instead of a device. Read at launch: one file per browser.
 */
export function fakeCameraArgs(videoFile: string): string[] {
  return ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${videoFile}`];
}

/** A Chromium whose camera films `videoFile` (`fakeCameraArgs`). */
export function launchChromiumWithCamera(videoFile: string): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...fakeCameraArgs(videoFile)] });
}

/** Collects console errors and uncaught exceptions of a page. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}

/** Decodes the one QR code in an element's screenshot. */
export async function decodeQr(locator: Locator): Promise<string> {
  const png = PNG.sync.read(await locator.screenshot());
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  if (!code) throw new Error(`no QR code found in a ${png.width}×${png.height} screenshot`);
  return code.data;
}

/**
 * User agents as the payment apps' browsers send them (2025 releases): the payer link of the POS's
 * one code for any wallet (`/p/<id>`) answers each differently.
 */
export const SOCIAL_APP_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.188 Mobile Safari/537.36 XWEB/1260117 MMWEBSDK/20240801 MMWEBID/2247 MicroMessenger/8.0.50.2701(0x28003237) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64';
export const ALIPAY_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 ChannelId(1) Ariver/1.1.0 AliApp(AP/10.6.10.6000) Nebula WK RVKType(1) AlipayDefined(nt:WIFI,ws:390|780|3.0) AlipayClient/10.6.10.6000 Language/zh-Hans Region/CN NebulaX/1.0.0';
