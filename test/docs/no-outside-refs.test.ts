/**
 * Nothing in the repository refers to files outside it: no design notes, no specification file
 * beside the checkout. Specification section numbers ("4.2") are fine: docs/api.md resolves them.
 * `../shared/src` is this repository's own shared package, seen from a sibling package.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '../..');
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'data', 'screenshots', 'coverage', '.cache']);
const SKIP_EXT = /\.(png|jpe?g|gif|ico|webp|woff2?|ttf|sqlite|db|tgz|gz|zip|lock)$/i;

// Built from pieces so that this file does not match itself.
const FORBIDDEN: Array<[string, RegExp]> = [
  ['the design notes', new RegExp(`${'DESI'}GN(\\.md|\\s+\\d)`)],
  ['a folder beside the repository', new RegExp(`\\.\\./${'shar'}ed/(?!src\\b)`)],
  ['the specification file', new RegExp(`${'se'}ed/000_`)],
];

function* files(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) yield* files(path.join(dir, e.name));
    } else if (e.isFile() && !SKIP_EXT.test(e.name)) yield path.join(dir, e.name);
  }
}

describe('references outside the repository', () => {
  const all = [...files(root)];

  it('reads the whole repository', () => {
    expect(all.length).toBeGreaterThan(200);
    expect(all.map((f) => path.relative(root, f))).toEqual(expect.arrayContaining(['README.md', 'server/src/config.ts', 'docs/api.md']));
  });

  it('finds none', () => {
    const found: string[] = [];
    for (const file of all) {
      const text = fs.readFileSync(file);
      if (text.includes(0)) continue; // binary
      const lines = text.toString('utf8').split('\n');
      lines.forEach((line, i) => {
        for (const [what, re] of FORBIDDEN) if (re.test(line)) found.push(`${path.relative(root, file)}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('would notice one', () => {
    expect(FORBIDDEN.some(([, re]) => re.test(['see', `${'DESI'}GN`, '2.1'].join(' ')))).toBe(true);
    expect(FORBIDDEN.some(([, re]) => re.test(`../${'shar'}ed/${'DESI'}GN.md`))).toBe(true);
    expect(FORBIDDEN.some(([, re]) => re.test(`../${'shar'}ed/src/index.ts`))).toBe(false);
  });
});
