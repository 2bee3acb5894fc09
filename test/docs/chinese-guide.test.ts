/**
 * The Chinese guide (design 7.7): README.zh-CN.md and docs/operations.zh-CN.md say what README.md and
 * docs/operations.md say, in Chinese. What must not drift between them is what an operator types or
 * reads off a screen: the commands (`npm …`), the settings (environment variable names), and the
 * routes and paths (every code span, code block or address that names one). Each pair names the same
 * ones, both ways, and the pages link to each other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { named } from './named-in-docs';

const ROOT = path.join(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const missing = (from: Set<string>, to: Set<string>) => [...from].filter((x) => !to.has(x)).sort();

describe.each([
  ['README.md', 'README.zh-CN.md'],
  ['docs/operations.md', 'docs/operations.zh-CN.md'],
])('%s and %s', (english, chinese) => {
  const en = read(english);
  const zh = read(chinese);

  it('is written in Chinese', () => {
    const prose = zh.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
    const han = prose.match(/\p{Script=Han}/gu)?.length ?? 0;
    expect(han).toBeGreaterThan(prose.replace(/\s/g, '').length / 4);
  });

  it('link to each other', () => {
    expect(en).toContain(`(${path.relative(path.dirname(english), chinese)})`);
    expect(zh).toContain(`(${path.relative(path.dirname(chinese), english)})`);
  });

  it.each(['commands', 'settings', 'paths'] as const)('name the same %s', (kind) => {
    const a = named(en)[kind];
    const b = named(zh)[kind];
    expect(a.size).toBeGreaterThan(kind === 'commands' ? 2 : 5);
    expect({ [`only in ${english}`]: missing(a, b), [`only in ${chinese}`]: missing(b, a) }).toEqual({
      [`only in ${english}`]: [],
      [`only in ${chinese}`]: [],
    });
  });
});
