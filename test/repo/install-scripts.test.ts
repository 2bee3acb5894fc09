/**
 * Every dependency's install script is reviewed (docs/operations.md, "Install scripts"): allowed or
 * denied by name in the root package.json's `allowScripts`, so that `npm install` ends without npm
 * 11's list of unreviewed scripts. Asks npm itself (`npm install-scripts ls`, read-only); an npm
 * without install-script review (before 11) says so and the check is skipped.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };

const npm = (...args: string[]) => spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
const reviews = npm('help', 'install-scripts').status === 0;

describe('install scripts', () => {
  (reviews ? it : it.skip)(`are all allowed or denied by name${reviews ? '' : ' (skipped: this npm has no install-script review; npm 11 has)'}`, () => {
    const ls = npm('install-scripts', 'ls');
    expect(ls.status).toBe(0);
    expect(`${ls.stdout}${ls.stderr}`.trim()).toBe('No packages with unreviewed install scripts.');
  });

  it('each decision has its reason in docs/operations.md', () => {
    const ops = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const section = ops.slice(ops.indexOf('## Install scripts'));
    const decisions = Object.entries(rootPackage.allowScripts ?? {});
    expect(decisions.length).toBeGreaterThanOrEqual(9);
    for (const [pkg, allowed] of decisions) {
      const row = section.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${pkg}\``));
      expect({ pkg, decision: row?.match(/\| (allowed|denied)[^|]*\|$/)?.[1] }).toEqual({ pkg, decision: allowed ? 'allowed' : 'denied' });
    }
  });
});
