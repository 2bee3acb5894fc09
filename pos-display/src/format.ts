/** What the screen says about times and order states. */
import type { OrderStatus } from '@kit/shared/api/prepay';

export const CURRENCY = '¥';

export function clockTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export const STATUS_LABEL: Record<OrderStatus, string> = {
  active: 'Waiting for payment',
  finish: 'Paid',
  cancel: 'Expired',
  refunded: 'Refunded',
};
