/**
 * `npm run server` runs the compiled service (`server/run.mjs`): the bundle is rebuilt exactly when
 * a file it was built from changed, never run stale, and the compiled service finds the files it
 * serves (the API reference page, the front ends' builds) from `server/dist` as it does from source.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { frontEndsNotServed, startServiceProcess, type ServiceProcess } from '../../server/test/support/process';

const ROOT = path.resolve(__dirname, '../..');

/** A copy of the service's sources beside the repository's node_modules, so that they can be edited. */
function copyOfServer(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-compiled-'));
  for (const rel of ['server/run.mjs', 'server/package.json', 'server/src', 'shared/package.json', 'sandbox/package.json', 'sandbox/src']) {
    fs.cpSync(path.join(ROOT, rel), path.join(dir, rel), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** Everything the build wrote: the entries and the chunks they share (ES modules split by esbuild). */
const built = (dir: string) =>
  fs
    .readdirSync(path.join(dir, 'server/dist'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => fs.readFileSync(path.join(dir, 'server/dist', f), 'utf8'))
    .join('\n');

const build = (dir: string) => execFileSync(process.execPath, [path.join(dir, 'server/run.mjs'), '--build'], { cwd: dir, stdio: 'pipe' });

describe('the compiled service', () => {
  let dir: string;
  beforeAll(() => {
    dir = copyOfServer();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is rebuilt when, and only when, a file it was built from changes', () => {
    const bundle = path.join(dir, 'server/dist/main.js');
    build(dir);
    const first = fs.statSync(bundle);
    expect(fs.readFileSync(bundle, 'utf8')).toContain('function runService(');

    build(dir);
    expect(fs.statSync(bundle).mtimeMs).toBe(first.mtimeMs);

    // An edit deep in the import graph (a file the entry does not import itself) reaches the bundle.
    const file = path.join(dir, 'server/src/service.ts');
    fs.appendFileSync(file, '\nexport const COMPILED_TEST_MARK = "mark-7f3a";\n');
    build(dir);
    expect(built(dir)).toContain('mark-7f3a');

    const logic = path.join(dir, 'server/src/payments/duplicate-payments.ts');
    fs.writeFileSync(
      logic,
      fs.readFileSync(logic, 'utf8').replace('second payment of an order that was already paid', '2nd payment of an order that was already paid'),
    );
    build(dir);
    expect(built(dir)).toContain('2nd payment of an order that was already paid');
    // A settings file the build reads without importing it: a tsconfig appearing beside the sources.
    const before = fs.statSync(bundle).mtimeMs;
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), '{}\n');
    build(dir);
    expect(fs.statSync(bundle).mtimeMs).not.toBe(before);
    // Nothing half written is left behind by the renames.
    expect(fs.readdirSync(path.join(dir, 'server/dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a bundle whose sources record is lost is rebuilt rather than trusted', () => {
    const bundle = path.join(dir, 'server/dist/main.js');
    fs.writeFileSync(bundle, 'throw new Error("stale")');
    fs.rmSync(path.join(dir, 'server/dist/main.inputs.json'));
    build(dir);
    expect(fs.readFileSync(bundle, 'utf8')).toContain('function runService(');
  });

  describe('running', () => {
    let svc: ServiceProcess;
    beforeAll(async () => {
      svc = await startServiceProcess({});
    }, 60_000);
    afterAll(async () => {
      await svc?.stop();
    });

    it('serves the API and its reference page from server/dist', async () => {
      const health = await fetch(`${svc.url}/health`);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      const page = await fetch(`${svc.url}/docs/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('init.js');
      expect((await fetch(`${svc.url}/docs/init.js`)).status).toBe(200);
      // "Try it", bundled on first request from its source (the compiled service leaves esbuild outside its bundle).
      expect(await (await fetch(`${svc.url}/docs/try-it.js`)).text()).toContain('KitTryIt');
    });

    it('finds the front ends where the build put them', async () => {
      // `npm test` builds them (`npm run build`) before this group runs.
      expect(await frontEndsNotServed(svc.url, ROOT)).toEqual([]);
    });
  });
});
