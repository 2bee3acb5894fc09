/**
 * Every `eslint-disable` in the repository says why (`// eslint-disable-next-line rule -- reason`), and names the
 * rule it turns off. (ESLint reports disables that no longer disable anything itself: `reportUnusedDisableDirectives`.)
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Every eslint-disable directive of the tracked sources, as `file:line: text`. */
function disableLines(): string[] {
  let out = '';
  try {
    out = execFileSync('git', ['grep', '-n', '-E', 'eslint-disable(-next-line|-line)?( |\\*/|$)', '--', '*.ts', '*.tsx', '*.js', '*.mjs', '*.cjs'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
  } catch (e) {
    // git grep answers 1 when nothing matches.
    if ((e as { status?: number }).status !== 1) throw e;
  }
  return out.split('\n').filter((l) => l && !l.startsWith('test/repo/disable-reasons.test.ts:'));
}

describe('eslint-disable directives', () => {
  it('are found at all (the pattern is right)', () => {
    expect(disableLines().length).toBeGreaterThan(0);
  });

  it('each name a rule and give a reason after " -- "', () => {
    const bare = disableLines().filter((l) => !/eslint-disable(?:-next-line|-line)?\s+[@\w/-]+(?:\s*,\s*[@\w/-]+)*\s+--\s+\S/.test(l));
    expect(bare).toEqual([]);
  });
});
