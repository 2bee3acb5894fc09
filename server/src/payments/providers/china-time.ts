/** The platforms write times as `yyyyMMddHHmmss` in China Standard Time (UTC+8, no daylight saving): the social platform's protocol v2 and its sandbox, API v3's bill and sharing answers, Alipay (`alipay/time.ts`). */

const CST_OFFSET_MS = 8 * 3_600_000;

export function formatChinaTime(ms: number): string {
  const d = new Date(ms + CST_OFFSET_MS);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** Unix ms of a `yyyyMMddHHmmss` CST time, or null when it is not one. */
export function parseChinaTime(text: string | undefined): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text ?? '');
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const ms = Date.UTC(y, mo - 1, d, h, mi, s) - CST_OFFSET_MS;
  return Number.isFinite(ms) ? ms : null;
}
