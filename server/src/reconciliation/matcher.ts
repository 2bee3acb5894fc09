/**
 * Matches a day's bill with the kit's books in both directions (5.2), by `out_trade_no` for payments
 * and `out_refund_no` for refunds. Pure: the service loads both sides and acts on what this finds.
 */
import { formatCents } from '@kit/shared';
import type { BillLine } from '../payments/providers/provider';
import type { DifferenceKind } from './recon-tables';

/** One side's view of a line: its state there and its amount (decimal string). */
export interface View {
  status: string;
  amount: string;
}

export interface KitPayment {
  out_trade_no: string;
  prepay_id: string;
  /** The channel order's state (`paid` once the kit recorded the payment). */
  state: string;
  total_cents: number;
  /** The prepay order's status, as the merchant sees it. */
  status: string;
  sub_merchant_id: string;
}

export interface KitRefund {
  out_trade_no: string;
  out_refund_no: string;
  prepay_id: string;
  state: string;
  refund_cents: number;
  sub_merchant_id: string;
}

export interface Found {
  kind: DifferenceKind;
  /** What a `status_mismatch` needs the channel to confirm. */
  of: 'payment' | 'refund';
  outTradeNo: string;
  outRefundNo: string | null;
  prepayId: string | null;
  subMerchantId: string | null;
  channelMchId: string | null;
  kit: View | null;
  channel: View | null;
}

export interface KitDay {
  /** Kit records the bill names (any day). */
  orders: Map<string, KitPayment>;
  refunds: Map<string, KitRefund>;
  /** What the kit recorded as paid or refunded during the day. */
  paid: KitPayment[];
  refunded: KitRefund[];
}

const money = formatCents;
const paymentView = (p: KitPayment): View => ({ status: p.status, amount: money(p.total_cents) });
const refundView = (r: KitRefund): View => ({ status: r.state, amount: money(r.refund_cents) });

/** Payment lines the channel counts as paid, and refund lines it counts as done. */
export const isPaidLine = (l: BillLine) => l.kind === 'payment' && l.settled;
export const isRefundedLine = (l: BillLine) => l.kind === 'refund' && l.settled;

export function match(lines: readonly BillLine[], kit: KitDay): Found[] {
  const found: Found[] = [];
  const billPaid = new Set<string>();
  const billRefunded = new Set<string>();
  // Payment codes the kit cancelled (7.4) that the payer had paid: the cancel gave the whole amount
  // back, which the bill shows as a refund the kit did not ask for. Paid and given back: nothing to do.
  const reversed = new Set(
    lines
      .filter((l) => isRefundedLine(l) && kit.orders.get(l.orderNo)?.state === 'cancelled' && !kit.refunds.has(l.refundNo!))
      .filter((l) => l.amountCents === kit.orders.get(l.orderNo)!.total_cents)
      .map((l) => l.orderNo),
  );
  for (const l of lines) {
    const channel: View = { status: l.status, amount: money(l.amountCents) };
    const base = { outTradeNo: l.orderNo, channelMchId: l.account, channel };
    if (reversed.has(l.orderNo) && (isPaidLine(l) || (isRefundedLine(l) && !kit.refunds.has(l.refundNo!)))) continue;
    if (isPaidLine(l)) {
      billPaid.add(l.orderNo);
      const p = kit.orders.get(l.orderNo);
      const known = p && { prepayId: p.prepay_id, subMerchantId: p.sub_merchant_id, kit: paymentView(p) };
      if (!p) found.push({ ...base, kind: 'channel_only', of: 'payment', outRefundNo: null, prepayId: null, subMerchantId: null, kit: null });
      else if (p.state !== 'paid') found.push({ ...base, ...known!, kind: 'status_mismatch', of: 'payment', outRefundNo: null });
      else if (p.total_cents !== l.amountCents) found.push({ ...base, ...known!, kind: 'amount_mismatch', of: 'payment', outRefundNo: null });
    } else if (isRefundedLine(l)) {
      billRefunded.add(l.refundNo!);
      const r = kit.refunds.get(l.refundNo!);
      const known = r && { prepayId: r.prepay_id, subMerchantId: r.sub_merchant_id, kit: refundView(r) };
      if (!r) found.push({ ...base, kind: 'channel_only', of: 'refund', outRefundNo: l.refundNo, prepayId: null, subMerchantId: null, kit: null });
      else if (r.state !== 'success') found.push({ ...base, ...known!, kind: 'status_mismatch', of: 'refund', outRefundNo: l.refundNo });
      else if (r.refund_cents !== l.amountCents) found.push({ ...base, ...known!, kind: 'amount_mismatch', of: 'refund', outRefundNo: l.refundNo });
    }
  }
  for (const p of kit.paid) {
    if (billPaid.has(p.out_trade_no)) continue;
    found.push(kitOnly('payment', p.out_trade_no, null, p.prepay_id, p.sub_merchant_id, paymentView(p)));
  }
  for (const r of kit.refunded) {
    if (billRefunded.has(r.out_refund_no)) continue;
    found.push(kitOnly('refund', r.out_trade_no, r.out_refund_no, r.prepay_id, r.sub_merchant_id, refundView(r)));
  }
  return found;
}

function kitOnly(of: Found['of'], outTradeNo: string, outRefundNo: string | null, prepayId: string, subMerchantId: string, kit: View): Found {
  return { kind: 'kit_only', of, outTradeNo, outRefundNo, prepayId, subMerchantId, channelMchId: null, kit, channel: null };
}
