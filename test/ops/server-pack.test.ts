/**
 * A server-only install (docs/operations.md, "A server-only install"): `npm run pack:server` packs
 * the service with its built front ends and a lockfile cut to what it needs; unpacked elsewhere and
 * installed as `npm ci --omit=dev` would install it, it runs the service, its front ends, its API
 * reference page and the `kit` command, with none of the front ends' toolchains present.
 *
 * The install is that lockfile's production packages copied from this checkout's node_modules
 * (the same versions, their native addons already built): the real `npm ci` from the registry takes
 * minutes and is measured in docs/operations.md instead. The copy is a folder of its own outside the
 * checkout, so nothing it lacks can be found in the checkout's node_modules.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_ENV } from '../../server/test/support/kit';
import { frontEndsNotServed, startServiceProcess, type ServiceProcess } from '../../server/test/support/process';

const ROOT = path.resolve(__dirname, '../..');

interface LockEntry {
  name?: string;
  version?: string;
  dev?: boolean;
  optional?: boolean;
  link?: boolean;
  resolved?: string;
}

/** What `npm ci --omit=dev` puts into `dir` from its npm-shrinkwrap.json, taken from this checkout's install. */
function installLikeNpmCi(dir: string): string[] {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'npm-shrinkwrap.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const installed: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where.includes('node_modules/') || entry.dev) continue;
    const to = path.join(dir, where);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (entry.link) {
      fs.symlinkSync(path.relative(path.dirname(to), path.join(dir, entry.resolved!)), to);
      continue;
    }
    const from = path.join(ROOT, where);
    // Another platform's binary (esbuild's, say) is not installed here, nor by npm on this machine.
    if (!fs.existsSync(from) && entry.optional) continue;
    expect({ where, version: JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8')).version }).toEqual({ where, version: entry.version });
    // Nested node_modules are entries of their own.
    fs.cpSync(from, to, { recursive: true, filter: (src) => !path.relative(from, src).split(path.sep).includes('node_modules') });
    installed.push(where);
  }
  return installed;
}

describe('the packed server', () => {
  let work: string;
  let project: string;
  let svc: ServiceProcess | undefined;
  let installed: string[];

  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-server-pack-test-'));
    // The front ends are built by `npm test` before this group; only what is stale is built here.
    const out = execFileSync('npm', ['run', '-s', 'pack:server', '--', '--out', work], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const tarball = out.trim().split('\n').pop()!;
    execFileSync('tar', ['xzf', tarball, '-C', work]);
    project = path.join(work, 'package');
    installed = installLikeNpmCi(project);
  }, 240_000);
  afterAll(async () => {
    if (svc && svc.child.exitCode === null) await svc.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('holds the service and its built front ends, and installs without the front ends’ toolchains', () => {
    for (const rel of [
      'server/run.mjs',
      'server/kit.mjs',
      'server/dist/main.js',
      'pos-display/dist/index.html',
      'console/dist/index.html',
      'miniprogram/dist/h5/index.html',
    ])
      expect(fs.existsSync(path.join(project, rel))).toBe(true);
    expect(fs.existsSync(path.join(project, 'miniprogram/src'))).toBe(false);
    for (const pkg of ['better-sqlite3', 'esbuild', 'express', 'pg', 'prom-client'])
      expect(installed.some((w) => w.endsWith(`node_modules/${pkg}`))).toBe(true);
    for (const pkg of ['@tarojs/cli', 'vite', 'jest', 'react', 'typescript', 'playwright-core'])
      expect({ pkg, installed: fs.existsSync(path.join(project, 'node_modules', pkg)) }).toEqual({ pkg, installed: false });
    // A fraction of the full install (1,803 packages).
    expect(installed.length).toBeLessThan(400);
  });

  it('runs the service from the unpacked project: the API, the front ends, the reference page and the kit command', async () => {
    const dataDir = path.join(work, 'data');
    svc = await startServiceProcess({ DATA_DIR: dataDir }, { cwd: project });
    expect(await (await fetch(`${svc.url}/health`)).json()).toMatchObject({ status: 'ok' });
    expect(await frontEndsNotServed(svc.url, project)).toEqual([]);
    // "Try it" is bundled on first request by the esbuild the server's install brought.
    expect(await (await fetch(`${svc.url}/docs/try-it.js`)).text()).toContain('KitTryIt');
    // The sandbox (on outside production) loads from the package's own bundle and packages.
    expect((await fetch(`${svc.url}/sandbox/`)).status).toBe(200);
    const created = execFileSync(process.execPath, ['server/kit.mjs', 'app', 'create', '--name', 'packed'], {
      cwd: project,
      // The service's own settings (a command refuses to act on a running service's DATA_DIR with others).
      env: { ...process.env, ...TEST_ENV, DATA_DIR: dataDir, PORT: new URL(svc.url).port },
      encoding: 'utf8',
    });
    expect(JSON.parse(created)).toMatchObject({ appId: expect.any(String), appSecret: expect.any(String) });
    expect(await svc.stop()).toBe(0);
  }, 120_000);
});
