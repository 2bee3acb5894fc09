/**
 * `@kit/shared` as a merchant's backend gets it: packed (`npm pack -w shared`) into the project's
 * own `vendor/` folder and installed from there, as docs/api.md says, so that the project records a
 * path inside itself (`file:vendor/…`) that survives a fresh clone and `npm ci`, not one into /tmp
 * (zod comes from the registry), imported from an ES module and from
 * CommonJS, and type-checked by a NodeNext TypeScript project; both scripts make signed calls
 * against a running kit.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backends } from '../../server/test/support/backends';
import { createMerchants, startTestKit, type TestKit } from '../../server/test/support/kit';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The code block of `lang` right after `<!-- tested: NAME -->` in the README. */
function readmeBlock(name: string, lang: string): string {
  const m = new RegExp(`<!-- tested: ${name} -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(README);
  if (!m) throw new Error(`README.md has no tested block "${name}"`);
  return m[1];
}

const ESM = `import { KitClient, verifyCallback, SIGNING_VECTORS } from '@kit/shared';
const kit = new KitClient({ baseUrl: process.env.KIT_URL, appId: process.env.KIT_APP_ID, appSecret: process.env.KIT_APP_SECRET });
const { prepayId } = await kit.createPrepay({ subMerchantId: process.env.KIT_SUB_ID, totalAmount: '12.34' });
const detail = await kit.prepayDetail(prepayId);
console.log(JSON.stringify({ prepayId, status: detail.status, totalAmount: detail.totalAmount, verifier: typeof verifyCallback, vectors: SIGNING_VECTORS.length }));
`;

const CJS = `const { KitClient } = require('@kit/shared');
const kit = new KitClient({ baseUrl: process.env.KIT_URL, appId: process.env.KIT_APP_ID, appSecret: process.env.KIT_APP_SECRET });
(async () => {
  const { prepayId } = await kit.createPrepay({ subMerchantId: process.env.KIT_SUB_ID, totalAmount: '5.00' });
  const detail = await kit.prepayDetail(prepayId);
  console.log(JSON.stringify({ prepayId, status: detail.status, totalAmount: detail.totalAmount }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

const TYPED = `import { KitClient, type PrepayDetail } from '@kit/shared';
const kit = new KitClient({ baseUrl: 'http://127.0.0.1:8080', appId: 'a', appSecret: 's' });
const detail: PrepayDetail = await kit.prepayDetail('abc');
const status: 'active' | 'finish' | 'cancel' | 'refunded' = detail.status;
export { status };
`;

describe('the @kit/shared package', () => {
  let kit: TestKit;
  let project: string;
  beforeAll(async () => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'merchant-backend-'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'merchant-backend', version: '1.0.0', private: true }));
    // The README's recipe, as written: build, pack into the backend's vendor/, install from there.
    execFileSync('bash', ['-euo', 'pipefail', '-c', readmeBlock('readme-kit-client-install', 'sh')], {
      cwd: ROOT,
      env: { ...process.env, BACKEND: project },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 240_000,
    });
    const packed = execFileSync('tar', ['-tzf', path.join(project, 'vendor/kit-shared-0.1.0.tgz')], { encoding: 'utf8' });
    // Only the build and the package's own README travel: no sources, tests or stamps.
    expect(
      packed
        .trim()
        .split('\n')
        .map((f) => f.replace(/^package\//, ''))
        .sort(),
    ).toEqual([
      'README.md',
      'dist/index.d.mts',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/index.js.map',
      'dist/index.mjs',
      'dist/index.mjs.map',
      'package.json',
    ]);
    const sqlite = backends()[0];
    kit = await startTestKit(sqlite, sqlite.env());
  }, 240_000);
  afterAll(async () => {
    await kit?.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  /** Runs a script of the merchant's project (asynchronously: the kit answering it lives in this process). */
  const run = async (file: string, source: string, env: NodeJS.ProcessEnv) => {
    fs.writeFileSync(path.join(project, file), source);
    const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: project, env: { ...process.env, ...env }, encoding: 'utf8' });
    return JSON.parse(stdout);
  };

  it('is imported from an ES module and from CommonJS, and both make signed calls', async () => {
    const { client, appId, appSecret } = await kit.newApp();
    const { subId } = await createMerchants(client, appId);
    const env = { KIT_URL: kit.url, KIT_APP_ID: appId, KIT_APP_SECRET: appSecret, KIT_SUB_ID: subId };

    const esm = await run('client.mjs', ESM, env);
    expect(esm).toMatchObject({ status: 'active', totalAmount: '12.34', verifier: 'function', vectors: 2 });
    const cjs = await run('client.cjs', CJS, env);
    expect(cjs).toMatchObject({ status: 'active', totalAmount: '5.00' });
    // The orders exist in the service, made by that app.
    expect((await client.prepayDetail(esm.prepayId)).totalAmount).toBe('12.34');
    expect((await client.prepayDetail(cjs.prepayId)).totalAmount).toBe('5.00');
  });

  it("runs the README's backend recipe as written", async () => {
    const { client, appId, appSecret } = await kit.newApp();
    const { subId } = await createMerchants(client, appId);
    const out = await run('readme.mjs', readmeBlock('readme-kit-client', 'js'), {
      KIT_URL: kit.url,
      KIT_APP_ID: appId,
      KIT_APP_SECRET: appSecret,
      KIT_SUB_ID: subId,
    });
    expect(out).toMatchObject({ prepayId: expect.any(String), status: 'active' });
    expect((await client.prepayDetail(out.prepayId)).totalAmount).toBe('12.34');
  });

  it('is recorded as a path inside the project, so a fresh clone installs it again with npm ci', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
    expect(pkg.dependencies['@kit/shared']).toBe('file:vendor/kit-shared-0.1.0.tgz');
    // The project moved elsewhere (a clone on another machine): the recorded path still resolves.
    const moved = fs.mkdtempSync(path.join(os.tmpdir(), 'merchant-backend-clone-'));
    try {
      for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(project, f), path.join(moved, f));
      fs.cpSync(path.join(project, 'vendor'), path.join(moved, 'vendor'), { recursive: true });
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: moved, stdio: ['ignore', 'ignore', 'pipe'], timeout: 180_000 });
      expect(fs.existsSync(path.join(moved, 'node_modules/@kit/shared/dist/index.js'))).toBe(true);
    } finally {
      fs.rmSync(moved, { recursive: true, force: true });
    }
  }, 200_000);

  it('type-checks in a NodeNext TypeScript project, top-level await included', () => {
    fs.writeFileSync(path.join(project, 'check.mts'), TYPED);
    fs.writeFileSync(
      path.join(project, 'check.cts'),
      "import { KitClient } from '@kit/shared';\nexport const client = new KitClient({ baseUrl: 'http://x', appId: 'a', appSecret: 's' });\n",
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
      'check.mts',
      'check.cts',
    ];
    expect(() => execFileSync(process.execPath, [tsc, ...args], { cwd: project, encoding: 'utf8', stdio: 'pipe' })).not.toThrow();
  }, 60_000);
});
