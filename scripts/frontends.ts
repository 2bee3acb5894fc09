/**
 * The repository's build targets (the anchor contract, the compiled service, the client package and the front ends) and how they are built:
 * only when their inputs changed since the last successful build (a content hash kept in
 * `node_modules/.cache/kit-build/`), always in production mode whatever `NODE_ENV` the caller has,
 * and quietly: one line per target, warnings counted, the full output kept in a log file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');
export const CACHE_DIR = path.join(ROOT, 'node_modules/.cache/kit-build');

export interface BuildTarget {
  name: string;
  /** Working directory, relative to the repository root (or absolute). */
  cwd: string;
  /** Executable in `node_modules/.bin` (or an absolute path) and its arguments. */
  command: [string, ...string[]];
  /** Files and folders (relative to the root) whose content decides whether to rebuild. */
  inputs: string[];
  /** A file the build produces; a build whose output is gone is redone whatever the stamp says. */
  output: string;
}

/** What every front end compiles besides its own folder: the shared source and the locked dependencies. */
const COMMON_INPUTS = ['shared/src', 'package-lock.json', 'tsconfig.json'];
/** What the two Vite front ends (the POS display and the console) also compile: their common parts. */
const WEB_INPUTS = ['web-common/src'];
const MINIPROGRAM_INPUTS = [
  'miniprogram/src',
  'miniprogram/config',
  'miniprogram/types',
  'miniprogram/babel.config.js',
  'miniprogram/package.json',
  'miniprogram/tsconfig.json',
  'miniprogram/project.config.json',
];

export const TARGETS: readonly BuildTarget[] = [
  {
    // Compiled with the npm `solc` (no download); the artifact is committed and rewritten here (scripts/contract.ts says why).
    name: 'anchor-contract',
    cwd: '.',
    command: [process.execPath, '--import', 'tsx', 'scripts/compile-contract.ts'],
    inputs: ['server/src/chain/anchor/KitAnchor.sol', 'scripts/contract.ts', 'scripts/compile-contract.ts', 'package-lock.json'],
    output: 'server/src/chain/anchor/kit-anchor.json',
  },
  {
    // The compiled service that `npm run server` and `npm start` run (server/run.mjs); built here
    // ahead so that an image can run it from a read-only file system.
    name: 'server',
    cwd: '.',
    command: [process.execPath, 'server/run.mjs', '--build'],
    inputs: [
      'server/src',
      'server/run.mjs',
      'server/package.json',
      'sandbox/src',
      'sandbox/package.json',
      'shared/src',
      'shared/package.json',
      'package-lock.json',
      'tsconfig.json',
    ],
    output: 'server/dist/main.js',
  },
  {
    name: 'shared',
    cwd: 'shared',
    command: ['tsup'],
    inputs: ['shared/src', 'shared/package.json', 'shared/tsup.config.ts', 'package-lock.json', 'tsconfig.json'],
    output: 'shared/dist/index.mjs',
  },
  {
    name: 'pos-display',
    cwd: 'pos-display',
    command: ['vite', 'build'],
    inputs: [
      'pos-display/src',
      'pos-display/index.html',
      'pos-display/vite.config.ts',
      'pos-display/package.json',
      'pos-display/tsconfig.json',
      ...COMMON_INPUTS,
      ...WEB_INPUTS,
    ],
    output: 'pos-display/dist/index.html',
  },
  {
    name: 'console',
    cwd: 'console',
    command: ['vite', 'build'],
    inputs: ['console/src', 'console/index.html', 'console/vite.config.ts', 'console/package.json', 'console/tsconfig.json', ...COMMON_INPUTS, ...WEB_INPUTS],
    output: 'console/dist/index.html',
  },
  {
    name: 'miniprogram-h5',
    cwd: 'miniprogram',
    command: ['taro', 'build', '--type', 'h5'],
    inputs: [...MINIPROGRAM_INPUTS, ...COMMON_INPUTS],
    output: 'miniprogram/dist/h5/index.html',
  },
  {
    name: 'miniprogram-weapp',
    cwd: 'miniprogram',
    command: ['taro', 'build', '--type', 'weapp'],
    inputs: [...MINIPROGRAM_INPUTS, ...COMMON_INPUTS],
    output: 'miniprogram/dist/weapp/app.js',
  },
];

/** What `npm start` serves: the POS display, the console and the mini-program's H5 build. */
export const SERVED_TARGETS = ['pos-display', 'console', 'miniprogram-h5'];

const SKIP = new Set(['node_modules', 'dist', '.swc', '.cache']);

/** Content hash of a target's inputs: paths and bytes, in a stable order; tests are left out (they are not built). */
export function inputsHash(target: BuildTarget): string {
  const hash = createHash('sha256');
  hash.update(target.command.join(' '));
  const visit = (rel: string) => {
    const abs = path.resolve(ROOT, rel);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      hash.update(`missing:${rel}\n`);
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(abs).sort()) {
        if (SKIP.has(entry) || /\.test\.tsx?$/.test(entry)) continue;
        visit(path.join(rel, entry));
      }
    } else {
      hash.update(`file:${rel}\n`);
      hash.update(fs.readFileSync(abs));
    }
  };
  for (const input of target.inputs) visit(input);
  return hash.digest('hex');
}

const stampFile = (target: BuildTarget) => path.join(CACHE_DIR, `${target.name}.stamp`);
export const logFile = (target: BuildTarget) => path.join(CACHE_DIR, `${target.name}.log`);

export function isFresh(target: BuildTarget, hash = inputsHash(target)): boolean {
  if (!fs.existsSync(path.resolve(ROOT, target.output))) return false;
  try {
    return fs.readFileSync(stampFile(target), 'utf8').trim() === hash;
  } catch {
    return false;
  }
}

/** Counts the warnings in a build's output (webpack, Vite/Rollup, Node deprecations) and names the first few. */
export function summariseWarnings(output: string): { count: number; samples: string[] } {
  // eslint-disable-next-line no-control-regex -- taking the terminal's colour codes (ESC [ … m) out is the point
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const samples: string[] = [];
  let count = 0;
  let webpackTotal: number | undefined;
  for (const line of lines) {
    const compiled = /compiled with (\d+) warnings?/.exec(line);
    if (compiled) webpackTotal = (webpackTotal ?? 0) + Number(compiled[1]);
    const m = /^\s*(?:WARNING in (.*)|\(!\) (.*)|\(node:\d+\) \[[^\]]+\] (\w*Warning: .*)|warn(?:ing)?:? (.*))$/i.exec(line);
    if (!m) continue;
    count++;
    const full = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').trim();
    const text = full.length > 100 ? `${full.slice(0, 97)}...` : full;
    if (text && samples.length < 3 && !samples.includes(text)) samples.push(text);
  }
  // webpack prints each warning twice (Taro's own summary and webpack's stats); its own total is the truth.
  return { count: webpackTotal ?? count, samples };
}

export interface BuildResult {
  name: string;
  status: 'fresh' | 'built' | 'failed';
  ms: number;
  warnings: number;
}

let running: ChildProcess | undefined;

/** Stops a build in progress (its whole process group): used when the caller is asked to stop. */
export function stopRunningBuild(): void {
  if (running?.pid && running.exitCode === null) {
    try {
      process.kill(-running.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/** Builds one target if its inputs changed (or `force`), printing one line about it with `say`. */
export async function buildTarget(target: BuildTarget, opts: { force?: boolean; say: (line: string) => void }): Promise<BuildResult> {
  const started = Date.now();
  const hash = inputsHash(target);
  const label = target.name.padEnd(18);
  if (!opts.force && isFresh(target, hash)) {
    opts.say(`${label} up to date`);
    return { name: target.name, status: 'fresh', ms: Date.now() - started, warnings: 0 };
  }
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const [bin, ...args] = target.command;
  const child = spawn(path.isAbsolute(bin) ? bin : path.join(ROOT, 'node_modules/.bin', bin), args, {
    cwd: path.resolve(ROOT, target.cwd),
    // Production builds whatever the service's NODE_ENV says (a development build of the H5 page is blank outside a dev server).
    env: { ...process.env, NODE_ENV: 'production', FORCE_COLOR: '0', NO_COLOR: '1', BROWSERSLIST_IGNORE_OLD_DATA: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running = child;
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', (err) => {
      output += `\n${err.message}\n`;
      resolve(1);
    });
    child.on('close', (c) => resolve(c));
  });
  running = undefined;
  fs.writeFileSync(logFile(target), output);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const rel = path.relative(process.cwd(), logFile(target));
  if (code !== 0) {
    const tail = output.trim().split('\n').slice(-15).join('\n');
    opts.say(`${label} FAILED after ${seconds} s (exit ${code}); last lines below, full output in ${rel}\n${tail}`);
    return { name: target.name, status: 'failed', ms: Date.now() - started, warnings: 0 };
  }
  fs.writeFileSync(stampFile(target), `${hash}\n`);
  const { count, samples } = summariseWarnings(output);
  const warned = count ? `, ${count} warning${count > 1 ? 's' : ''} (${samples.join('; ') || 'see the log'}; ${rel})` : '';
  opts.say(`${label} built in ${seconds} s${warned}`);
  return { name: target.name, status: 'built', ms: Date.now() - started, warnings: count };
}

/** Builds the named targets one after another (two cores: in parallel they only slow each other); stops at the first failure. */
export async function buildTargets(names: readonly string[], opts: { force?: boolean; say: (line: string) => void }): Promise<BuildResult[]> {
  const results: BuildResult[] = [];
  for (const name of names) {
    const target = TARGETS.find((t) => t.name === name);
    if (!target) throw new Error(`unknown build target ${name} (known: ${TARGETS.map((t) => t.name).join(', ')})`);
    const result = await buildTarget(target, opts);
    results.push(result);
    if (result.status === 'failed') break;
  }
  return results;
}
