/**
 * Second payments refunded automatically (design 6.3, docs/payments.md "Paid once") as a day's bill
 * shows them: the second payment is a paid channel order like any other, and its refund, made by
 * the kit under a refund number of its own (not the order's refund, 4.6), is a refund the kit
 * made. Added to the kit's side of the day, both reconcile as the explained duplicate they are,
 * instead of the refund reading as one the kit never made (`channel_only`).
 */
import type { BillLine } from '../payments/providers/provider';
import type { DuplicateStore } from '../payments/duplicate-store';
import { chinaDayRange } from './china-day';
import { isRefundedLine, type KitDay } from './matcher';

export async function withDuplicateRefunds(
  kit: KitDay,
  duplicates: DuplicateStore,
  channel: string,
  date: string,
  lines: readonly BillLine[],
): Promise<KitDay> {
  const { from, to } = chinaDayRange(date);
  const named = [...new Set(lines.filter(isRefundedLine).map((l) => l.refundNo!))].filter((no) => !kit.refunds.has(no));
  const refunds = new Map(kit.refunds);
  for (const d of await duplicates.refundsNamed(channel, named)) refunds.set(d.out_refund_no, d);
  const known = new Set(kit.refunded.map((r) => r.out_refund_no));
  const refunded = [...kit.refunded, ...(await duplicates.refundedBetween(channel, from, to)).filter((d) => !known.has(d.out_refund_no))];
  return { ...kit, refunds, refunded };
}
