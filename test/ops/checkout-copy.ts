/**
 * A copy of the checkout's sources in a temporary folder, beside the checkout's installed packages,
 * for tests that build in place (`npm start --rebuild`): their builds land in the copy, so that the
 * suites running meanwhile in other workers keep reading the checkout's own, whole builds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** What `npm start` reads: its scripts, the service and every front end's sources and settings. */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts',
  'server',
  'sandbox',
  'shared',
  'web-common',
  'pos-display',
  'console',
  'miniprogram',
];
/** Outputs, caches and tests stay behind; installed packages are linked below. */
const LEFT_OUT = new Set(['node_modules', 'dist', '.swc', '.cache', 'test']);

/**
 * The copy's `node_modules` links each of the checkout's packages but keeps its own `.cache`: the
 * build stamps there say what the copy's builds were made from, not the checkout's.
 */
function linkPackages(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from)) {
    if (entry !== '.cache') fs.symlinkSync(path.join(from, entry), path.join(to, entry));
  }
}

export function copyOfCheckout(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-checkout-'));
  for (const rel of SOURCES) {
    fs.cpSync(path.join(ROOT, rel), path.join(dir, rel), {
      recursive: true,
      filter: (src) => !LEFT_OUT.has(path.basename(src)) && !/\.test\.tsx?$/.test(src),
    });
  }
  linkPackages(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  for (const pkg of ['server', 'sandbox', 'miniprogram']) {
    const own = path.join(ROOT, pkg, 'node_modules');
    if (fs.existsSync(own)) fs.symlinkSync(own, path.join(dir, pkg, 'node_modules'));
  }
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
