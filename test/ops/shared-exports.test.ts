/**
 * The service runs without the repository's tsconfig paths: `@kit/shared` exports every subpath
 * the server and the front ends import, and the server's modules load through Node's own package
 * resolution (the `source` condition points at the TypeScript the repository compiles).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

function sourceFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => /\.tsx?$/.test(f) && !f.includes('node_modules') && !f.includes('dist'))
    .map((f) => path.join(dir, f));
}

describe('@kit/shared outside the tsconfig paths', () => {
  it('exports every subpath the server and the front ends import', () => {
    const exported = new Set(Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'shared/package.json'), 'utf8')).exports as object));
    const imported = new Set<string>();
    for (const dir of ['server/src', 'pos-display/src', 'console/src', 'miniprogram/src']) {
      for (const file of sourceFiles(path.join(ROOT, dir))) {
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/from '@kit\/shared(\/[^']+)?'/g)) imported.add(`.${m[1] ?? ''}`);
      }
    }
    expect(imported.size).toBeGreaterThan(5);
    expect([...imported].filter((sub) => !exported.has(sub)).sort()).toEqual([]);
  });

  it("loads the server's modules from a directory without the repository's tsconfig", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-outside-'));
    try {
      const modules = ['server/src/runtime.ts', 'server/src/app.ts', 'server/src/frontends/pos/pos-backend.ts', 'server/src/frontends/mp/mp-backend.ts'];
      fs.writeFileSync(
        path.join(dir, 'probe.mts'),
        `${modules.map((m) => `import ${JSON.stringify(path.join(ROOT, m))};`).join('\n')}\nconsole.log('loaded');\n`,
      );
      const { stdout } = await run(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'probe.mts'], {
        cwd: dir,
        env: { ...process.env, NODE_OPTIONS: '--conditions=source' },
        timeout: 90_000,
      });
      expect(stdout.trim()).toBe('loaded');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
