/**
 * `npm run test:unit`, `test:api` and `test:browser` together run every test of the repository, each once:
 * every `*.test.ts(x)` file on disk (outside node_modules and builds) is listed by exactly one of the Jest
 * projects of jest.config.js, as Jest itself selects them (`--listTests --selectProjects`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

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
  it('are the three npm scripts run', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const g of groups) expect(scripts[`test:${g}`]).toContain(`--selectProjects ${g}`);
    // `npm test` runs each group's script (after the checks and builds the browser group needs), whatever else it does.
    const steps = scripts.test.split('&&').map((s) => s.trim());
    const at = (step: string) => steps.indexOf(step);
    for (const g of groups) expect(steps).toContain(`npm run test:${g}`);
    expect(at('npm run build')).toBeGreaterThanOrEqual(0);
    expect(at('npm run build')).toBeLessThan(at('npm run test:browser'));
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
