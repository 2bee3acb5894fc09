/**
 * An order's story as the console tells it (design 5.3): every state change with its time and
 * cause, its callbacks with their attempts, its refund and its profit-sharing splits, built from
 * what the services and the public API answered. No I/O: `console-backend.ts` gathers the parts.
 */
import { formatCents, type CallbackItem, type PaymentChannel } from '@kit/shared';
import type { ConsoleDuplicatePayment, ConsoleOrderDetail, ConsoleOrderLine, ConsoleSplit, ConsoleTimelineEvent } from '@kit/shared/api/console';
import type { PayChannelOrdersTable, PayDuplicatePaymentsTable, PayRefundsTable, PrepayOrdersTable } from '../../db/schema';
import { shownStatus } from '../../orders/order-expiry';
import type { ProfitSharingService } from '../../profit-sharing/ps-service';

/** Within one second (the channel's times are to the second), causes come in this order. */
const KIND_ORDER: ConsoleTimelineEvent['kind'][] = [
  'created',
  'channelOrder',
  'channelOrderClosed',
  'paid',
  'duplicatePaid',
  'expired',
  'callback',
  'sharingRequested',
  'sharingResult',
  'refundRequested',
  'refundCompleted',
  'refundFailed',
  'duplicateRefunded',
  'duplicateRefundFailed',
];

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? undefined : new Date(Number(ms)).toISOString());

export interface OrderParts {
  row: PrepayOrdersTable;
  channelOrders: PayChannelOrdersTable[];
  refund: PayRefundsTable | undefined | null;
  /** Second payments of the order, refunded automatically (almost always none). */
  duplicates?: PayDuplicatePaymentsTable[];
  /** Oldest first. */
  callbacks: CallbackItem[];
  requests: Awaited<ReturnType<ProfitSharingService['requestsOf']>>;
  /** The sub-merchant's name (its id when unknown). */
  merchantName: string | undefined;
  now: number;
}

export function orderStory({ row, channelOrders, refund, duplicates = [], callbacks, requests, merchantName, now }: OrderParts): ConsoleOrderDetail {
  const timeline: ConsoleTimelineEvent[] = [{ at: iso(row.create_time)!, kind: 'created', cause: 'created', detail: { amount: formatCents(row.total_cents) } }];
  const secondPayments = new Map(duplicates.map((d) => [d.out_trade_no, d]));
  const duplicatePayments: ConsoleDuplicatePayment[] = [];
  for (const co of channelOrders) {
    timeline.push({ at: iso(co.created_at)!, kind: 'channelOrder', cause: co.trade_type, detail: { channel: co.channel, outTradeNo: co.out_trade_no } });
    const second = secondPayments.get(co.out_trade_no);
    if (second) {
      duplicatePayments.push(duplicateStory(co, second, timeline));
    } else if (co.state === 'paid' && co.paid_at) {
      timeline.push({
        at: iso(co.paid_at)!,
        kind: 'paid',
        // How the kit learned of it; rows paid before it was kept say `unrecorded`.
        cause: co.paid_via ?? 'unrecorded',
        detail: { transactionId: co.transaction_id ?? '', outTradeNo: co.out_trade_no, channel: co.channel },
      });
    } else if (co.state === 'closed' || co.state === 'failed' || co.state === 'cancelled') {
      timeline.push({ at: iso(co.updated_at)!, kind: 'channelOrderClosed', cause: co.state, detail: { outTradeNo: co.out_trade_no } });
    }
  }
  if (row.status === 'cancel') timeline.push({ at: iso(Math.min(row.updated_at, now))!, kind: 'expired', cause: 'notPaidInTime' });
  if (refund) {
    timeline.push({
      at: iso(refund.created_at)!,
      kind: 'refundRequested',
      cause: 'refundCall',
      detail: { amount: formatCents(refund.refund_cents), outRefundNo: refund.out_refund_no },
    });
    if (refund.state === 'success' && refund.completed_at)
      timeline.push({ at: iso(refund.completed_at)!, kind: 'refundCompleted', cause: 'channel', detail: { refundId: refund.refund_id ?? '' } });
    if (refund.state === 'failed')
      timeline.push({ at: iso(refund.updated_at)!, kind: 'refundFailed', cause: 'channel', detail: { error: refund.last_error ?? '' } });
  }
  for (const c of callbacks) timeline.push({ at: c.createdAt, kind: 'callback', cause: c.event, detail: { id: c.id, state: c.state } });
  const splits: ConsoleSplit[] = requests.map((r) => ({
    outOrderNo: r.out_order_no,
    kind: r.kind,
    state: r.state,
    amount: formatCents(r.amount_cents),
    createdAt: iso(r.created_at)!,
    receivers: r.receivers.map((s) => ({
      type: s.type,
      account: s.account,
      amount: formatCents(s.amountCents),
      result: s.result,
      ...(s.failReason ? { failReason: s.failReason } : {}),
      ...(s.finishTime ? { finishTime: s.finishTime } : {}),
    })),
  }));
  for (const s of splits) {
    timeline.push({ at: s.createdAt, kind: 'sharingRequested', cause: s.kind, detail: { outOrderNo: s.outOrderNo, amount: s.amount } });
    for (const r of s.receivers) {
      if (r.finishTime && r.result !== 'pending')
        timeline.push({ at: r.finishTime, kind: 'sharingResult', cause: r.result, detail: { account: r.account, amount: r.amount } });
    }
  }
  // The channel tells times to the second: within one second, the order of causes decides.
  const second = (e: ConsoleTimelineEvent) => Math.floor(Date.parse(e.at) / 1000);
  const rank = (e: ConsoleTimelineEvent) =>
    KIND_ORDER.indexOf(e.kind === 'callback' && e.cause === 'refunded' ? 'refundCompleted' : e.kind) * 2 + (e.kind === 'callback' ? 1 : 0);
  timeline.sort((a, b) => second(a) - second(b) || rank(a) - rank(b) || Date.parse(a.at) - Date.parse(b.at));
  const refundBusy = refund && (refund.state === 'requesting' || refund.state === 'accepted');
  // The wallet that paid: the first paid channel order's (a later one through another wallet is not the order's payment).
  const firstPaid = channelOrders.filter((co) => co.state === 'paid' && co.paid_at).sort((a, b) => a.paid_at! - b.paid_at!)[0];
  return {
    ...orderLine(row, now, firstPaid?.channel as PaymentChannel | undefined),
    merchantName: merchantName ?? row.sub_merchant_id,
    timeline,
    callbacks,
    splits,
    refundable: row.status === 'finish' && !refundBusy,
    refund: refund
      ? {
          state: refund.state,
          amount: formatCents(refund.refund_cents),
          requestedAt: iso(refund.created_at)!,
          ...(refund.completed_at ? { completedAt: iso(refund.completed_at)! } : {}),
          ...(refund.last_error ? { error: refund.last_error } : {}),
        }
      : null,
    duplicatePayments,
  };
}

/**
 * A second payment through `co`, refunded automatically: "second payment through <channel> …
 * refunded automatically" in the timeline, and its line in the detail.
 */
function duplicateStory(co: PayChannelOrdersTable, d: PayDuplicatePaymentsTable, timeline: ConsoleTimelineEvent[]): ConsoleDuplicatePayment {
  const amount = formatCents(d.refund_cents);
  const paidAt = iso(co.paid_at ?? d.created_at)!;
  timeline.push({
    at: paidAt,
    kind: 'duplicatePaid',
    cause: co.paid_via ?? 'unrecorded',
    detail: { channel: d.channel, transactionId: co.transaction_id ?? '', outTradeNo: co.out_trade_no, amount, outRefundNo: d.out_refund_no },
  });
  if (d.state === 'success' && d.completed_at)
    timeline.push({
      at: iso(d.completed_at)!,
      kind: 'duplicateRefunded',
      cause: 'automatic',
      detail: { channel: d.channel, amount, refundId: d.refund_id ?? '' },
    });
  if (d.state === 'failed')
    timeline.push({ at: iso(d.updated_at)!, kind: 'duplicateRefundFailed', cause: 'channel', detail: { channel: d.channel, error: d.last_error ?? '' } });
  return {
    channel: d.channel,
    outTradeNo: co.out_trade_no,
    transactionId: co.transaction_id ?? '',
    amount,
    paidAt,
    refundState: d.state,
    outRefundNo: d.out_refund_no,
    ...(d.completed_at ? { refundedAt: iso(d.completed_at)! } : {}),
    ...(d.last_error ? { error: d.last_error } : {}),
  };
}

/** An order as the console's lists show it. */
export function orderLine(r: PrepayOrdersTable, now: number, paymentChannel?: PaymentChannel): ConsoleOrderLine {
  const status = shownStatus(r, now);
  const out: ConsoleOrderLine = {
    prepayId: r.prepay_id,
    subMerchantId: r.sub_merchant_id,
    amount: formatCents(r.total_cents),
    status,
    createTime: iso(r.create_time)!,
  };
  if (r.payment_time !== null && r.payment_time !== undefined) out.paymentTime = iso(r.payment_time)!;
  if (paymentChannel) out.paymentChannel = paymentChannel;
  return out;
}
