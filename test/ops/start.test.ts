/**
 * `npm start` as a newcomer and a process manager use it: with NODE_ENV=development it still builds
 * production front ends (the mini-program page renders in Chromium), says one line per front end,
 * announces every address, skips builds whose sources did not change, and SIGTERM sent to the npm
 * process stops the service cleanly and frees the port. It runs in a copy of the checkout (its builds
 * would otherwise replace the ones the browser suites read meanwhile).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, watchConsole } from '../browser/chromium';
import { waitFor } from '../../server/test/support/wait';
import { copyOfCheckout } from './checkout-copy';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Whether any process of the group led by `pid` is still alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until no process of the group is left once npm exited (tsx's esbuild helper leaves a moment after its parent). */
const groupGone = (pid: number) => waitFor(() => !groupAlive(pid), `process group ${pid} gone`);

interface Started {
  child: ChildProcess;
  url: string;
  port: number;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `npm start` in `root`: a copy of the checkout, so that its builds never replace the ones other suites are reading. */
async function npmStart(root: string, args: string[], env: NodeJS.ProcessEnv): Promise<Started> {
  const port = await freePort();
  // Its own process group, as a process manager starts it, so the test can see that nothing is left behind.
  const child = spawn('npm', ['start', ...(args.length ? ['--', ...args] : [])], {
    cwd: root,
    env: { ...process.env, KIT_ENV_FILE: 'off', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  // Building the front ends first: minutes on a machine running other suites beside this one.
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited early:\n${err}`);
      return fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
    },
    'npm start to answer /health',
    240_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${err}`);
  });
  // The banner follows the listen: /health can answer a moment before it is written.
  await waitFor(() => err.includes('kit ready'), 'the banner');
  return { child, url, port, stderr: () => err, exited };
}

/** What `npm start` itself said (npm's own configuration warnings left out). */
const ownLines = (stderr: string) => stderr.split('\n').filter((l) => l.trim() && !l.startsWith('npm warn'));

describe('npm start', () => {
  let checkout: ReturnType<typeof copyOfCheckout>;
  let dataDir: string;
  let browser: Browser | undefined;
  const started: Started[] = [];
  beforeAll(() => {
    checkout = copyOfCheckout();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-start-'));
  });
  afterAll(async () => {
    await browser?.close();
    for (const s of started) if (s.child.pid && groupAlive(s.child.pid)) process.kill(-s.child.pid, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    checkout?.remove();
  });

  it('builds production front ends under NODE_ENV=development, announces its addresses and stops on SIGTERM to npm', async () => {
    const s = await npmStart(checkout.dir, ['--rebuild'], { NODE_ENV: 'development', DATA_DIR: dataDir });
    started.push(s);
    const lines = ownLines(s.stderr());
    const ready = lines.findIndex((l) => l.startsWith('kit ready'));
    // One line per front end before the service starts, nothing else, and no warning in them.
    expect(lines.slice(0, ready)).toEqual([
      expect.stringMatching(/^build {2}pos-display\s+built in [0-9.]+ s/),
      expect.stringMatching(/^build {2}console\s+built in [0-9.]+ s/),
      expect.stringMatching(/^build {2}miniprogram-h5\s+built in [0-9.]+ s/),
    ]);
    const banner = lines.slice(ready).join('\n');
    for (const address of ['/pos/', '/console/', '/mp/', '/docs/', '/openapi.json', '/metrics', '/sandbox/']) expect(banner).toContain(`${s.url}${address}`);
    // The addresses it really listens on, and no warning on loopback in development.
    expect(banner).toContain(`listening on    ${s.url} only (HOST=127.0.0.1; HOST=0.0.0.0 lets a phone on the network reach it)`);
    expect(banner).not.toContain('WARNING');
    expect(banner).toContain('settings        ');
    // The first steps are the README's, and the first two addresses it prints are pages, not JSON 404s.
    expect(banner).toContain('npm run kit -- demo create --out demo.json');
    for (const page of ['/', '/sandbox/']) expect((await fetch(`${s.url}${page}`)).headers.get('content-type')).toMatch(/^text\/html/);

    browser = await launchChromium();
    const page = await browser.newPage();
    const problems = watchConsole(page);
    await page.goto(`${s.url}/mp/#/pages/pay/index`);
    // The page rendered (a link without an order says so); a development build would be blank with "$RefreshReg$ is not defined".
    await page.locator('[data-testid="mp-status"][data-state="missing"]').waitFor({ timeout: 20_000 });
    expect(problems.filter((p) => /RefreshReg|pageerror/.test(p))).toEqual([]);

    const sent = Date.now();
    process.kill(s.child.pid!, 'SIGTERM');
    expect(await s.exited).toBe(0);
    expect(Date.now() - sent).toBeLessThan(15_000);
    expect(await portOpen(s.port)).toBe(false);
    await groupGone(s.child.pid!);
  }, 300_000);

  it('skips builds whose sources did not change and stops on SIGINT too', async () => {
    const s = await npmStart(checkout.dir, [], { NODE_ENV: 'development', DATA_DIR: dataDir });
    started.push(s);
    const lines = ownLines(s.stderr());
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^build {2}pos-display\s+up to date$/),
      expect.stringMatching(/^build {2}console\s+up to date$/),
      expect.stringMatching(/^build {2}miniprogram-h5\s+up to date$/),
    ]);
    process.kill(s.child.pid!, 'SIGINT');
    expect(await s.exited).toBe(0);
    expect(await portOpen(s.port)).toBe(false);
    await groupGone(s.child.pid!);
  }, 120_000);
});
