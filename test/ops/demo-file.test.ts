/**
 * The README tour writes `demo.json` (an app secret and a password) at the root of the checkout:
 * git must not offer to commit it and `prettier --check .` (part of `npm test`) must not read it.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

describe('demo.json of the README tour', () => {
  it('is ignored by git', () => {
    expect(execFileSync('git', ['check-ignore', '--no-index', 'demo.json'], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe('demo.json');
  });

  it('is ignored by prettier', () => {
    const info = execFileSync(path.join(ROOT, 'node_modules/.bin/prettier'), ['--file-info', 'demo.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(info)).toMatchObject({ ignored: true });
  });
});
