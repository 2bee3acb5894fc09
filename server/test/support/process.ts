/** Runs the real service or the `kit` command as a separate process, for crash, restart and CLI tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TEST_ENV } from './kit';
import { waitFor } from './wait';

const ROOT = path.resolve(__dirname, '../../..');

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** SIGKILL: no shutdown code runs (a crash). */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the service as `npm run server` does, compiled (`server/run.mjs`), on `port` or a free one, and waits until /health answers;
 * `cwd`: the project it runs from (default this checkout; an unpacked server package, test/ops/server-pack.test.ts).
 */
export async function startServiceProcess(env: NodeJS.ProcessEnv, opts: { port?: number; cwd?: string } = {}): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const { child, output, exited } = spawnService(env, port, opts.cwd);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`service exited early:\n${output()}`);
    return fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
  }, 'the service answering /health').catch((e: Error) => {
    child.kill('SIGKILL');
    throw child.exitCode !== null ? e : new Error(`service did not become healthy (${e.message}):\n${output()}`);
  });
  return {
    child,
    url,
    output,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** `server/run.mjs` as `npm run server` runs it, its stdout and stderr together in `output()`. */
function spawnService(env: NodeJS.ProcessEnv, port: number, cwd = ROOT) {
  const child = spawn(process.execPath, ['server/run.mjs'], {
    cwd,
    env: { ...process.env, ...TEST_ENV, LOG_LEVEL: 'info', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/**
 * Starts the service with settings it must refuse and waits for it to exit (within 30 s; one that
 * starts instead is stopped and reported): its exit code and what it wrote.
 */
export async function refusedServiceStart(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const { child, output, exited } = spawnService(env, await freePort());
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await exited;
  clearTimeout(timer);
  if (code === null) throw new Error(`the service did not exit within 30 s:\n${output()}`);
  return { code, output: output() };
}

/**
 * Runs the `kit` command with `args` and returns its exit code and output: `node server/kit.mjs`,
 * which is what `npm run -s kit -- <args>` runs (package.json: `exec node server/kit.mjs`), without
 * npm's own start (a fifth of a second of CPU each, and the suites run dozens). `silent: false`
 * runs it as an operator types it, `npm run kit -- <args>`, with npm's own header on stdout.
 */
export function runKitCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { silent?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const [command, commandArgs] = opts.silent === false ? ['npm', ['run', 'kit', '--', ...args]] : [process.execPath, ['server/kit.mjs', ...args]];
    const child = spawn(command, commandArgs, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The front ends a service serves, by route, and the file of each build (relative to the project the service runs from). */
const SERVED_PAGES = [
  ['/pos/', 'pos-display/dist/index.html'],
  ['/console/', 'console/dist/index.html'],
  ['/mp/', 'miniprogram/dist/h5/index.html'],
] as const;

/** The front-end routes of the service at `url` whose page is not the build's own file in `root` (none when all are served). */
export async function frontEndsNotServed(url: string, root: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const [route, file] of SERVED_PAGES) {
    const res = await fetch(`${url}${route}`);
    if (res.status !== 200 || (await res.text()) !== fs.readFileSync(path.join(root, file), 'utf8')) wrong.push(route);
  }
  return wrong;
}
