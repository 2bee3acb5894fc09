/**
 * The ways the platforms write a time, all in China Standard Time (UTC+8, no daylight saving),
 * written here apart from the kit's own readers so that a shared mistake cannot pass unseen:
 * - `yyyyMMddHHmmss`: protocol v2, and API v3's bills and profit-sharing answers;
 * - RFC 3339 with `+08:00` and whole seconds: API v3's resources (`success_time`, `create_time`);
 * - `yyyy-MM-dd HH:mm:ss`: Alipay's open platform;
 * - `yyyy-MM-dd`: a bill's day.
 * Each is computed from UTC, so the host's `TZ` never matters.
 */

const CST = 8 * 3_600_000;
const DAY = 86_400_000;

/** `yyyy-MM-ddTHH:mm:ss` of the China wall clock at `ms`. */
const wall = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000 + CST).toISOString().slice(0, 19);

/** Unix ms of a China wall-clock time given as parts, or null when they are no real time. */
function fromWall(y: string, mo: string, d: string, h: string, mi: string, s: string): number | null {
  const text = `${y}-${mo}-${d}T${h}:${mi}:${s}`;
  const ms = Date.parse(`${text}Z`);
  // Date.parse rolls 31 February over to March; a time that does not read back the same is none.
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 19) === text ? ms - CST : null;
}

/** `yyyyMMddHHmmss`. */
export const compactTime = (ms: number): string => wall(ms).replace(/\D/g, '');

export function parseCompactTime(text: string | undefined): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text ?? '');
  return m ? fromWall(m[1], m[2], m[3], m[4], m[5], m[6]) : null;
}

/** `yyyy-MM-ddTHH:mm:ss+08:00`. */
export const rfc3339China = (ms: number): string => `${wall(ms)}+08:00`;

/** `yyyy-MM-dd HH:mm:ss`, Alipay's. */
export const dashedTime = (ms: number): string => wall(ms).replace('T', ' ');

export function parseDashedTime(text: string | undefined): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text ?? '');
  return m ? fromWall(m[1], m[2], m[3], m[4], m[5], m[6]) : null;
}

/** Whether `text` is a real date written `yyyy-MM-dd`. */
export const isDay = (text: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(text) && fromWall(...(text.split('-') as [string, string, string]), '00', '00', '00') !== null;

/** Unix ms of 00:00 China time on `day` and of the next day's. */
export function dayRange(day: string): { from: number; to: number } {
  const from = Date.parse(`${day}T00:00:00Z`) - CST;
  return { from, to: from + DAY };
}
