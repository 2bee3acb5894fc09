/**
 * Looks at a rendered screen the way a person would, and says what is wrong: the page wider than
 * the screen, an element sticking out of it, a button, amount or chip on more than one line or
 * clipped, a primary button whose text contrast is below 4.5:1, or an action below the fold.
 * Saves a screenshot of every screen it looks at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

export interface LookOptions {
  /** Elements that must stay on one line and unclipped (buttons, amounts, chips). */
  oneLine: string;
  /** Primary buttons: their text must have a contrast of at least 4.5:1. */
  primary: string;
  /** Buttons must be visible without scrolling, except inside these (scrolling lists). */
  scrollAreas?: string;
  /** Also require every button to be inside the viewport (a kiosk screen with no scrolling). */
  actionsInView?: boolean;
  /** Save a screenshot (default true). */
  save?: boolean;
}

export interface Problem {
  screen: string;
  what: string;
}

/** Where the screenshots go: `SCREENSHOTS_DIR`, or test/browser/screenshots of this checkout. */
export function screenshotDir(): string {
  return process.env.SCREENSHOTS_DIR ?? path.resolve(__dirname, 'screenshots');
}

/**
 * The screenshot folder, without the earlier screenshots whose names start with `prefix`: the
 * suites saving there may run at the same time, and each removes only its own.
 */
export function resetScreenshots(prefix: string): string {
  const dir = screenshotDir();
  fs.mkdirSync(dir, { recursive: true });
  for (const name of fs.readdirSync(dir)) if (name.startsWith(prefix)) fs.rmSync(path.join(dir, name), { force: true });
  return dir;
}

/** Lets layout, fonts and images settle before measuring. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await document.fonts.ready;
    await Promise.all([...document.images].filter((i) => !i.complete).map((i) => new Promise((r) => i.addEventListener('load', r, { once: true }))));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
}

/** Measures the screen and saves `<name>.png`; returns the problems found. */
export async function look(page: Page, name: string, opts: LookOptions): Promise<Problem[]> {
  await settle(page);
  const found = await page.evaluate(measure, opts);
  if (opts.save !== false) fs.writeFileSync(path.join(screenshotDir(), `${name}.png`), await page.screenshot({ fullPage: false }));
  return found.map((what) => ({ screen: name, what }));
}

/** Runs in the page. Kept self-contained: Playwright serialises it. */
function measure(opts: LookOptions): string[] {
  const problems: string[] = [];
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const label = (el: Element) => {
    const id = el.getAttribute('data-testid');
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return `${el.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : cls} "${text}"`;
  };
  const visible = (el: Element) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    for (let e: Element | null = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) return false;
    }
    return true;
  };

  // 1. Nothing wider than the screen.
  const doc = document.documentElement;
  if (doc.scrollWidth > vw + 1) problems.push(`the page is ${doc.scrollWidth}px wide on a ${vw}px screen`);
  for (const el of document.body.querySelectorAll('*')) {
    if (!visible(el) || el.closest('[aria-hidden="true"]')) continue;
    const r = el.getBoundingClientRect();
    if (r.right > vw + 1 || r.left < -1) {
      problems.push(`${label(el)} sticks out of the screen (${Math.round(r.left)}…${Math.round(r.right)} of ${vw}px)`);
      break;
    }
  }

  // 2. One line, not clipped.
  const lines = (el: Element) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0).sort((a, b) => a.top - b.top);
    let count = 0;
    let bottom = -Infinity;
    for (const r of rects) {
      // A rect starting below the current line's middle starts a new line.
      if (r.top >= bottom - 2) {
        count += 1;
        bottom = r.bottom;
      } else bottom = Math.max(bottom, r.bottom);
    }
    return count;
  };
  for (const el of document.querySelectorAll(opts.oneLine)) {
    if (!visible(el) || !(el.textContent ?? '').trim()) continue;
    const n = lines(el);
    if (n > 1) problems.push(`${label(el)} wraps onto ${n} lines`);
    const s = getComputedStyle(el);
    if (s.display !== 'inline' && s.textOverflow !== 'ellipsis' && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${label(el)} is clipped: its content is ${el.scrollWidth}px in a ${el.clientWidth}px box`);
    }
    // The nearest ancestor that clips must hold it whole.
    const r = el.getBoundingClientRect();
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const ps = getComputedStyle(p);
      if (ps.overflowX === 'visible') continue;
      const pr = p.getBoundingClientRect();
      if (r.right > pr.right + 1 || r.left < pr.left - 1) problems.push(`${label(el)} is cut off by ${label(p).slice(0, 60)}`);
      break;
    }
  }

  // 3. Primary buttons: text contrast of at least 4.5:1, whatever their state.
  type RGBA = [number, number, number, number];
  const parse = (c: string): RGBA => {
    const m = c.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 0];
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (top: RGBA, bottom: RGBA): RGBA => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i: number) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const backdrop = (el: Element | null): RGBA => {
    // The opaque colour behind an element: its ancestors' backgrounds, composed, over white.
    const layers: RGBA[] = [];
    for (let e = el; e; e = e.parentElement) layers.push(parse(getComputedStyle(e).backgroundColor));
    return layers.reverse().reduce((acc, layer) => over(layer, acc), [255, 255, 255, 1] as RGBA);
  };
  const luminance = ([r, g, b]: RGBA) => {
    const ch = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
  };
  for (const el of document.querySelectorAll(opts.primary)) {
    if (!visible(el)) continue;
    let opacity = 1;
    for (let e: Element | null = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const behind = backdrop(el.parentElement);
    const bgOwn = over(parse(getComputedStyle(el).backgroundColor), behind);
    let fg = over(parse(getComputedStyle(el).color), bgOwn);
    let bg = bgOwn;
    if (opacity < 1) {
      // A translucent button shows the page through both its text and its background.
      fg = over([fg[0], fg[1], fg[2], opacity], behind);
      bg = over([bg[0], bg[1], bg[2], opacity], behind);
    }
    const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5) problems.push(`${label(el)} has text contrast ${ratio.toFixed(2)}:1 (needs 4.5:1)`);
  }

  // 4. Actions within reach: no button below the fold (or beside the screen).
  if (opts.actionsInView) {
    for (const el of document.querySelectorAll('button, taro-button-core')) {
      if (!visible(el) || (opts.scrollAreas && el.closest(opts.scrollAreas))) continue;
      const r = el.getBoundingClientRect();
      if (r.bottom > vh + 1) problems.push(`${label(el)} is below the fold (bottom ${Math.round(r.bottom)} of ${vh}px)`);
    }
  }
  return problems;
}
