/**
 * Alipay writes times as `yyyy-MM-dd HH:mm:ss` in China Standard Time (UTC+8), in requests
 * (`timestamp`, `time_expire`) and answers (`send_pay_date`, `gmt_payment`). Computed from UTC so
 * that the host's `TZ` never matters (the official Node SDK stamps the host's local time).
 */
import { formatChinaTime, parseChinaTime } from '../china-time';

export function alipayTime(ms: number): string {
  const t = formatChinaTime(ms);
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}`;
}

/** Unix ms of an Alipay time, or null when the text is not one. */
export function parseAlipayTime(text: string | undefined): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text ?? '');
  return m ? parseChinaTime(m.slice(1).join('')) : null;
}
