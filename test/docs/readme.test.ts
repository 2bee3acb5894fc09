/**
 * The README is the front door: short, the two commands near the top. What it used to promise moved
 * with the content: every error in docs/api.md, every setting in docs/configuration.md, every admin
 * command in docs/operations.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '@kit/shared';
import { CONFIG_KEYS } from '../../server/src/configuration';
import { commands } from '../../server/src/kit/commands';

const root = path.join(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md');

describe('README', () => {
  it('shows the two commands near the top', () => {
    const top = readme.slice(0, 2500);
    expect(top).toContain('npm install && npm start');
    expect(top).toContain('npm test');
  });

  it('stays short', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('tours the demo, the POS, the payer page, the console and a signed call', () => {
    for (const part of ['npm run kit -- demo create', '/pos/', '/mp/', '/sandbox/pay', '/console/', 'openssl dgst -sha256 -hmac', 'curl'])
      expect(readme).toContain(part);
  });
});

describe('docs/api.md', () => {
  const api = read('docs/api.md');
  it.each(Object.entries(ERROR_CATALOGUE))('lists the error %s with its code', (id, { code }) => {
    expect(api).toMatch(new RegExp(`\\|\\s*\`${id}\`\\s*\\|\\s*\`${code}\``));
  });
});

describe('docs/configuration.md', () => {
  const config = read('docs/configuration.md');
  it.each(CONFIG_KEYS.map((k) => [k]))('documents the setting %s', (key) => {
    expect(config).toMatch(new RegExp(`\\|\\s*\`${key}\`\\s*\\|`));
  });
});

describe('docs/operations.md', () => {
  const ops = read('docs/operations.md');
  it.each(commands.map((c) => [`${c.group} ${c.name}`]))('documents the command kit %s', (name) => {
    expect(ops).toContain(`npm run kit -- ${name}`);
  });
});
