/** The README is part of the product: every error, setting and admin command it promises must be there. */
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '@kit/shared';
import { CONFIG_KEYS } from '../../server/src/config';
import { commands } from '../../server/src/kit/commands';

const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');

describe('README', () => {
  it('shows the two commands near the top', () => {
    const top = readme.slice(0, 2500);
    expect(top).toContain('npm install && npm start');
    expect(top).toContain('npm test');
  });

  it.each(Object.entries(ERROR_CATALOGUE))('lists the error %s with its code', (id, { code }) => {
    expect(readme).toMatch(new RegExp(`\\|\\s*\`${id}\`\\s*\\|\\s*\`${code}\``));
  });

  it.each(CONFIG_KEYS.map((k) => [k]))('documents the setting %s', (key) => {
    expect(readme).toMatch(new RegExp(`\\|\\s*\`${key}\`\\s*\\|`));
  });

  it.each(commands.map((c) => [`${c.group} ${c.name}`]))('documents the command kit %s', (name) => {
    expect(readme).toContain(`npm run kit -- ${name}`);
  });
});
