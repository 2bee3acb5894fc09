/** Days of reconciliation are China dates (UTC+8, no daylight saving), as the platform cuts its bills (5.2). */

const CST_OFFSET_MS = 8 * 3_600_000;
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` of the China date that contains `ms`. */
export function chinaDate(ms: number): string {
  return new Date(ms + CST_OFFSET_MS).toISOString().slice(0, 10);
}

/** Whether `text` is a real calendar date written `YYYY-MM-DD`. */
export function isChinaDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/** Unix ms of 00:00 China time on `date`, and of the next day's 00:00. */
export function chinaDayRange(date: string): { from: number; to: number } {
  const from = Date.parse(`${date}T00:00:00Z`) - CST_OFFSET_MS;
  return { from, to: from + DAY_MS };
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
