/**
 * `npm run pack:server [-- --out DIR]`: the service as one tarball for a server, without the
 * front ends' toolchains (Vite, Taro and the rest of the 1,800 packages of the full install). It
 * builds what is stale (the compiled service, the POS display, the console and the mini-program's H5
 * page: built once, here), then packs with `npm pack` a project of three workspaces (`shared`,
 * `server`, `sandbox`: their sources, which the service's bundle is checked against and the API
 * reference page's "Try it" is built from) with the builds in the folders the service serves them
 * from, and an `npm-shrinkwrap.json` cut from this checkout's lockfile, so that the server installs
 * exactly the versions tested here: `npm ci --omit=dev` there (docs/operations.md, "A server-only
 * install"). Writes `merchant-kit-server-<version>.tgz` into DIR (default `dist/`) and prints its path.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildTargets, ROOT } from './frontends';

/** The builds the tarball carries: the service's bundle and what it serves. */
const PACKED_BUILDS = ['server', 'pos-display', 'console', 'miniprogram-h5'];
/** The workspaces a server needs: the service, what it shares with the front ends, and the sandbox (for a trial; production never loads it). */
const WORKSPACES = ['shared', 'server', 'sandbox'];
/** Files and folders copied as they are (relative to the root); tests stay behind. */
const COPIED = [
  'tsconfig.json',
  'README.md',
  'README.zh-CN.md',
  'server/package.json',
  'server/run.mjs',
  'server/kit.mjs',
  'server/src',
  'server/dist',
  'shared/package.json',
  'shared/src',
  'sandbox/package.json',
  'sandbox/src',
  'pos-display/dist',
  'console/dist',
  'miniprogram/dist/h5',
];

const say = (line: string) => process.stderr.write(`${line}\n`);

/** The project a server installs: the root's scripts for the service, its three workspaces, the install-script policy. */
function serverPackageJson(): object {
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const scripts = Object.fromEntries(['server', 'kit'].map((s) => [s, root.scripts[s]]));
  return {
    name: 'merchant-kit-server',
    version: root.version,
    private: true,
    description: `${root.description}: the service with its built front ends, for a server (npm ci --omit=dev, then npm start)`,
    workspaces: WORKSPACES,
    engines: root.engines,
    // `npm start` here runs the compiled service: the front ends are built already.
    scripts: { start: root.scripts.server, ...scripts },
    allowScripts: root.allowScripts,
  };
}

function packServer(outDir: string): string {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-server-pack-'));
  try {
    for (const rel of COPIED) {
      const from = path.join(ROOT, rel);
      if (!fs.existsSync(from)) throw new Error(`${rel} is missing: build it first (npm run build)`);
      fs.cpSync(from, path.join(stage, rel), { recursive: true, filter: (src) => !/\.test\.tsx?$/.test(src) && path.basename(src) !== 'node_modules' });
    }
    fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(serverPackageJson(), null, 2)}\n`);
    // The checkout's lockfile, cut down by npm itself to what the three workspaces need (no
    // registry asked: every version is in it already); shipped as npm-shrinkwrap.json, which,
    // unlike package-lock.json, `npm pack` keeps.
    fs.copyFileSync(path.join(ROOT, 'package-lock.json'), path.join(stage, 'package-lock.json'));
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: stage, stdio: 'pipe' });
    fs.renameSync(path.join(stage, 'package-lock.json'), path.join(stage, 'npm-shrinkwrap.json'));
    fs.mkdirSync(outDir, { recursive: true });
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', path.resolve(outDir)], { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    ) as Array<{
      filename: string;
    }>;
    return path.join(path.resolve(outDir), packed[0].filename);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: path.join(ROOT, 'dist') } } });
  const results = await buildTargets(PACKED_BUILDS, { say: (l) => say(`build  ${l}`) });
  if (results.some((r) => r.status === 'failed')) process.exit(1);
  const file = packServer(values.out!);
  say(`packed ${path.relative(process.cwd(), file) || file} (${(fs.statSync(file).size / 1e6).toFixed(1)} MB)`);
  process.stdout.write(`${file}\n`);
}

main().catch((err) => {
  say(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
