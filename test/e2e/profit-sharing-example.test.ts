/**
 * The profit-sharing example of docs/profit-sharing.md runs as written against a kit and its sandbox: the kit is
 * set up the way that page says (demo create, merchant contract), then `examples/profit-sharing.ts`
 * runs as a separate process and must get to the end.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backends } from '../../server/test/support/backends';
import { startTestKit, type TestKit } from '../../server/test/support/kit';
import { runKitCommand } from '../../server/test/support/process';

const ROOT = path.resolve(__dirname, '../..');
jest.setTimeout(60_000);

describe('examples/profit-sharing.ts', () => {
  let kit: TestKit;
  beforeAll(async () => {
    kit = await startTestKit(backends()[0], { SANDBOX_PROFIT_SHARING_DELAY: '300ms', PROFIT_SHARING_QUERY_SCHEDULE: '200ms' });
  });
  afterAll(() => kit.close());

  it('contract → parameters → order → pay → receivers → split → follow → finish', async () => {
    // As an operator would, in separate processes on the kit's own database.
    const env = { DATA_DIR: kit.runtime.config.DATA_DIR, LOG_LEVEL: 'silent' };
    const created = await runKitCommand(['demo', 'create'], env);
    expect(created.code).toBe(0);
    const demo = JSON.parse(created.stdout.split('\n').find((l) => l.startsWith('{'))!);
    expect((await runKitCommand(['merchant', 'contract', demo.parentMerchantId], env)).code).toBe(0);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kit-example-')), 'demo.json');
    fs.writeFileSync(file, JSON.stringify(demo));

    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/profit-sharing.ts'], {
      cwd: ROOT,
      env: { ...process.env, KIT_DEMO: file, KIT_URL: kit.url },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect([code, out]).toEqual([0, expect.any(String)]);
    expect(out).toMatch(/split accepted\s+\{"outOrderNo":"split-\w+","state":"processing"\}/);
    expect(out).toMatch(/1900000555\s+17\.60 success/);
    expect(out).toMatch(/"sharedAmount":"22\.00","maxShareAmount":"26\.40","unfrozen":true/);
  });
});
