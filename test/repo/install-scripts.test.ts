/**
 * Every dependency's install script is reviewed (docs/operations.md, "Install scripts"): allowed or
 * denied by name in the root package.json's `allowScripts`, so that `npm install` ends without npm
 * 11's list of unreviewed scripts. Read from the lockfile, where npm marks each package that has an
 * install script (`hasInstallScript`), rather than by asking `npm install-scripts ls`, which walks
 * the installed tree: a minute and more on a busy machine, under a time limit that a test should
 * not need.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean; link?: boolean }>;
};

/** The packages of the lockfile with an install script, by name (a package installed twice counts once). */
const withInstallScripts = [
  ...new Set(
    Object.entries(lock.packages)
      .filter(([where, p]) => where.includes('node_modules/') && p.hasInstallScript)
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length)),
  ),
].sort();

describe('install scripts', () => {
  it('are all allowed or denied by name, and no decision names a package without one', () => {
    expect(withInstallScripts.length).toBeGreaterThan(0);
    expect(Object.keys(rootPackage.allowScripts ?? {}).sort()).toEqual(withInstallScripts);
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
