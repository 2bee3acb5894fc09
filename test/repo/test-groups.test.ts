/**
 * `npm run test:unit`, `test:api` and `test:browser` together run every test of the repository, each once:
 * every `*.test.ts(x)` file on disk (outside node_modules and builds) is listed by exactly one of the Jest
 * projects of jest.config.js, as Jest itself selects them (`--listTests --selectProjects`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PLAN } from '../../scripts/test-plan';

const ROOT = path.resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.cache', '.swc', 'coverage', 'data']);

function testFilesOnDisk(dir = ROOT, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) testFilesOnDisk(full, out);
    else if (/\.test\.tsx?$/.test(entry.name)) out.push(path.relative(ROOT, full));
  }
  return out;
}

/** The files Jest selects for one project, relative to the checkout. */
function listed(group: string): string[] {
  const out = execFileSync(process.execPath, [require.resolve('jest/bin/jest'), '--listTests', '--selectProjects', group], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => path.isAbsolute(l)) // Jest also says which project it runs
    .map((l) => path.relative(ROOT, l));
}

/** The groups `npm test` runs: a file only another Jest project lists is one `npm test` never runs. */
const groups = ['unit', 'api', 'browser'];

describe('the test groups', () => {
  it('are all run by `npm test`, the browser group after the builds', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const g of groups) expect(scripts[`test:${g}`]).toContain(`--selectProjects ${g}`);
    expect(scripts.test).toContain('scripts/test.ts');
    // The Jest projects each phase of `npm test` selects, read off the npm scripts its steps run.
    const phaseOf = new Map<string, number>();
    PLAN.forEach((phase, i) =>
      phase.forEach((step) => {
        const script = scripts[step.script];
        expect(script).toBeDefined();
        for (const m of script.matchAll(/--selectProjects((?:\s+[a-z]+)+)/g)) for (const g of m[1].trim().split(/\s+/)) phaseOf.set(g, i);
        if (step.script === 'build') phaseOf.set('build', i);
      }),
    );
    for (const g of groups) expect(phaseOf.has(g)).toBe(true);
    expect(phaseOf.get('build')!).toBeLessThan(phaseOf.get('browser')!);
  });

  it('hold every test file, each in exactly one group', () => {
    const owners = new Map<string, string[]>();
    for (const g of groups) for (const f of listed(g)) owners.set(f, [...(owners.get(f) ?? []), g]);
    const onDisk = testFilesOnDisk().sort();
    expect(onDisk.length).toBeGreaterThan(100);
    expect(onDisk.filter((f) => !owners.has(f))).toEqual([]);
    expect([...owners].filter(([, gs]) => gs.length > 1)).toEqual([]);
    expect([...owners.keys()].filter((f) => !onDisk.includes(f))).toEqual([]);
  }, 120_000);
});
