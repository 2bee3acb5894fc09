/** The platforms' China times against the platform's own calendar (Intl's Asia/Shanghai), whatever the host's zone. */
import { compactTime, dashedTime, dayRange, isDay, parseCompactTime, parseDashedTime, rfc3339China } from './china-time';

const shanghai = (ms: number): string =>
  new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Asia/Shanghai',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  })
    .format(new Date(ms))
    .replace(',', '');

describe('China times', () => {
  const times = [Date.UTC(2026, 0, 1, 0, 0, 0, 999), Date.UTC(2025, 11, 31, 16, 0, 0), Date.UTC(2024, 1, 29, 15, 59, 59)];

  it.each(times)('writes %p as Shanghai reads it, and reads it back', (ms) => {
    const whole = Math.floor(ms / 1000) * 1000;
    expect(dashedTime(ms)).toBe(shanghai(ms));
    expect(compactTime(ms)).toBe(shanghai(ms).replace(/\D/g, ''));
    expect(rfc3339China(ms)).toBe(`${shanghai(ms).replace(' ', 'T')}+08:00`);
    expect(parseDashedTime(dashedTime(ms))).toBe(whole);
    expect(parseCompactTime(compactTime(ms))).toBe(whole);
  });

  it('refuses what is no time', () => {
    expect(parseCompactTime('20260231120000')).toBeNull();
    expect(parseDashedTime('2026-01-01T00:00:00')).toBeNull();
    expect(parseCompactTime(undefined)).toBeNull();
    expect(isDay('2026-02-29')).toBe(false);
    expect(isDay('2024-02-29')).toBe(true);
  });

  it("cuts a bill's day at China midnight", () => {
    expect(dayRange('2026-01-01')).toEqual({ from: Date.UTC(2025, 11, 31, 16), to: Date.UTC(2026, 0, 1, 16) });
  });
});
