import path from 'node:path';
import { loadConfig, parseBytes, parseDuration, settingDocs } from './config';

describe('configuration', () => {
  it('starts on working defaults with nothing set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 8080, production: false, DATA_DIR: path.resolve('./data') });
  });

  it('reads durations, sizes, flags and schedules in the documented forms', () => {
    expect([parseDuration('500ms'), parseDuration('15s'), parseDuration('3m'), parseDuration('2h'), parseDuration('250')]).toEqual([
      500, 15_000, 180_000, 7_200_000, 250,
    ]);
    expect([parseBytes('512kb'), parseBytes('8MB'), parseBytes('100')]).toEqual([524_288, 8_388_608, 100]);
    const c = loadConfig({ CALLBACK_RETRY_SCHEDULE: '1s,2s,5s', PORT: '0' });
    expect(c.CALLBACK_RETRY_SCHEDULE).toEqual([1_000, 2_000, 5_000]);
    expect(c.PORT).toBe(0);
  });

  it('refuses malformed values with one clear line each, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'abc', CALLBACK_RETRY_SCHEDULE: '1s,soon', NODE_ENV: 'staging' })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^Invalid configuration:\n/) }),
    );
    let message = '';
    try {
      loadConfig({ PORT: 'abc', CALLBACK_RETRY_SCHEDULE: '1s,soon' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('PORT: must be a port number (0–65535)');
    expect(message).toContain('CALLBACK_RETRY_SCHEDULE: "soon" is not a duration such as 500ms, 15s, 3m or 2h');
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
  });

  it('documents every setting with its defaults', () => {
    const docs = settingDocs();
    expect(docs.filter((d) => !d.description)).toEqual([]);
    expect(docs.find((d) => d.key === 'PORT')).toMatchObject({ development: '8080', production: '8080' });
    expect(loadConfig({ NODE_ENV: 'production' }).production).toBe(true);
  });
});
