/**
 * The production build holds none of the sandbox (design 6.2): `server/run.mjs` bundles the service
 * as ES modules split into chunks, and the sandbox (`@kit/sandbox`, imported lazily by the one
 * plug-in point `server/src/plugins/load.ts`) is `server/dist/sandbox.js`, outside the static import
 * graph of `main.js` and `kit.js`. The modules it shares with the service are in shared chunks, one
 * instance each. A production service (SANDBOX_ENABLED unset) starts, and serves, without it: here
 * the sandbox's file is deleted first, and a development start, which needs it, fails for want of it.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../server/test/support/process';
import { waitFor } from '../../server/test/support/wait';

const ROOT = path.resolve(__dirname, '../..');

/** A copy of the sources the build reads, beside the repository's node_modules. */
function copyOfCheckout(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-production-build-'));
  for (const rel of ['server/run.mjs', 'server/package.json', 'server/src', 'shared/package.json', 'sandbox/package.json', 'sandbox/src']) {
    fs.cpSync(path.join(ROOT, rel), path.join(dir, rel), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** The relative imports of an ES module that load with it (`import … from "./x.js"`), not its `import("./x.js")`. */
const staticImports = (code: string): string[] => [...code.matchAll(/(?:^|\n)import\s+(?:[^'"();]*?\s+from\s+)?["'](\.\/[^"']+)["']/g)].map((m) => m[1]);

/** The files an entry's static import graph holds, itself included. */
function staticGraph(dist: string, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const dep of staticImports(fs.readFileSync(path.join(dist, file), 'utf8'))) visit(path.posix.normalize(dep));
  };
  visit(entry);
  return [...seen];
}

/** The source modules an output file holds (esbuild marks each with a `// <path>` line). */
const modulesIn = (dist: string, file: string): string[] =>
  [...fs.readFileSync(path.join(dist, file), 'utf8').matchAll(/^\/\/ ((?:server|sandbox|shared)\/src\/\S+\.tsx?)$/gm)].map((m) => m[1]);

/** Runs the copy's compiled service until `/health` answers (resolves its URL) or it exits (rejects with its output). */
async function start(dir: string, env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-production-data-'));
  const child = spawn(process.execPath, ['server/run.mjs'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', DATA_DIR: dataDir, HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error('service exited');
      return fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
    }, 'the service to answer /health');
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}:\n${out}`);
  }
  return { url, stop, output: () => out };
}

describe('the production build', () => {
  let dir: string;
  let dist: string;
  beforeAll(() => {
    dir = copyOfCheckout();
    dist = path.join(dir, 'server/dist');
    execFileSync(process.execPath, [path.join(dir, 'server/run.mjs'), '--build'], { cwd: dir, stdio: 'pipe' });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("keeps the sandbox out of the service's and the kit command's static import graphs", () => {
    for (const entry of ['main.js', 'kit.js']) {
      const graph = staticGraph(dist, entry);
      const modules = graph.flatMap((f) => modulesIn(dist, f));
      expect(modules).toContain('server/src/runtime.ts');
      expect(graph).not.toContain('sandbox.js');
      expect(modules.filter((m) => m.startsWith('sandbox/'))).toEqual([]);
    }
    // The plug-in point loads it on demand: the one `import()` of it.
    const loaders = fs.readdirSync(dist).filter((f) => f.endsWith('.js') && fs.readFileSync(path.join(dist, f), 'utf8').includes('import("./sandbox.js")'));
    expect(loaders).toHaveLength(1);
    expect(modulesIn(dist, loaders[0])).toContain('server/src/plugins/load.ts');
  });

  it("holds the sandbox in a piece of its own that shares the service's modules instead of copying them", () => {
    const own = modulesIn(dist, 'sandbox.js');
    expect(own).toContain('sandbox/src/plugin.ts');
    // The service's modules it uses (the plug-in contract's helpers: the page shell, the errors, the ids) come from
    // the shared chunks, one instance each; none of a provider's (the sandbox signs and formats with rules of its own).
    expect(own.filter((m) => m.startsWith('server/'))).toEqual([]);
    const sharedWithService = staticGraph(dist, 'sandbox.js')
      .filter((f) => f !== 'sandbox.js')
      .flatMap((f) => modulesIn(dist, f));
    expect(sharedWithService).toEqual(expect.arrayContaining(['server/src/http/errors.ts', 'server/src/frontends/pages/page.ts']));
    expect(sharedWithService.filter((m) => m.startsWith('server/src/payments/'))).toEqual([]);
    for (const m of sharedWithService) expect(staticGraph(dist, 'main.js').some((f) => modulesIn(dist, f).includes(m))).toBe(true);
  });

  it('starts in production without the sandbox, which it never loads; a development start needs it', async () => {
    fs.rmSync(path.join(dist, 'sandbox.js'));
    const prod = await start(dir, { NODE_ENV: 'production' });
    try {
      expect((await fetch(`${prod.url}/sandbox/`)).status).toBe(404);
      const doc = (await (await fetch(`${prod.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/sandbox'))).toEqual([]);
      expect(await (await fetch(`${prod.url}/`)).text()).not.toContain('/sandbox/');
    } finally {
      await prod.stop();
    }
    await expect(start(dir, { NODE_ENV: 'development' })).rejects.toThrow(/sandbox\.js/);
  }, 90_000);
});
