import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from './configuration';
import { readSettings, settingsFilePath } from './settings-file';

describe('the settings file', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-settings-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is .env at the checkout root by default, and the environment wins over it', () => {
    fs.writeFileSync(path.join(dir, '.env'), '# the shop\nPORT=9090\nDATA_DIR=./shop-data\nRECONCILE_AT="09:45"\n');
    const s = readSettings({ PORT: '7070' }, dir);
    expect(s.file).toBe(path.join(dir, '.env'));
    expect(s.env).toMatchObject({ PORT: '7070', DATA_DIR: './shop-data', RECONCILE_AT: '09:45' });
    expect(s.fromFile.sort()).toEqual(['DATA_DIR', 'RECONCILE_AT']);
    expect(loadConfig(s.env)).toMatchObject({ PORT: 7070, RECONCILE_AT: '09:45', DATA_DIR: path.resolve('./shop-data') });
  });

  it('is absent without harm, names another file with KIT_ENV_FILE, and is off with KIT_ENV_FILE=off', () => {
    expect(readSettings({ PORT: '1' }, dir)).toEqual({ env: { PORT: '1' }, fromFile: [] });
    const other = path.join(dir, 'shop.env');
    fs.writeFileSync(other, 'HOST=0.0.0.0\n');
    fs.writeFileSync(path.join(dir, '.env'), 'HOST=10.0.0.1\n');
    expect(settingsFilePath({ KIT_ENV_FILE: other }, dir)).toBe(other);
    expect(readSettings({ KIT_ENV_FILE: other }, dir).env.HOST).toBe('0.0.0.0');
    expect(readSettings({ KIT_ENV_FILE: 'off' }, dir)).toEqual({ env: { KIT_ENV_FILE: 'off' }, fromFile: [] });
  });

  it('refuses a file KIT_ENV_FILE names that is not there (a typo must not start on defaults)', () => {
    expect(() => readSettings({ KIT_ENV_FILE: path.join(dir, 'nope.env') }, dir)).toThrow(/KIT_ENV_FILE: cannot read .*nope\.env/);
  });
});
