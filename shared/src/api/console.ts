/**
 * The merchant console's own API (`/console/api/*`): answers of the thin router that holds the
 * secrets. Free of zod so the console can import it; the request schemas are in `console-schemas.ts`.
 */
import type { CallbackItem } from './callbacks';
import type { OrderStatus } from './prepay';
import type { PaymentChannel } from './merchant';
import type { DifferenceKind, DifferenceResolution, ReconciliationDifference, ReconciliationTotals } from './reconciliation';

export type { ConsoleOrdersQuery, ConsoleRecoverRequest } from './console-schemas';

export interface ConsoleSession {
  merchantId: string;
  displayName: string;
  /** Null for a parent merchant, which sees all its sub-merchants. */
  parentMerchantId: string | null;
  /** The merchants this login sees: itself, and a parent's sub-merchants. */
  merchants: Array<{ id: string; displayName: string }>;
  /** Whether the development receiver (`/sandbox/receiver`) runs here. */
  receiver: boolean;
}

export interface ConsoleOrderLine {
  prepayId: string;
  subMerchantId: string;
  amount: string;
  status: OrderStatus;
  createTime: string;
  paymentTime?: string;
  /** The wallet that paid (4.7 channel names: `SocialNative`, `Alipay`…), once paid. */
  paymentChannel?: PaymentChannel;
}

/**
 * What happened to an order, oldest first. `kind` says what, `cause` why (keys a screen translates),
 * `detail` the facts. A `paid` event's cause is how the kit learned of the payment: `notification`,
 * `query` (an order query: reconciliation, the check before expiry, a close answered "paid"),
 * `reconciliation` (the daily statement) or `unrecorded` (paid before the kit kept it).
 * `duplicatePaid`: a second payment of the paid order through another channel order (`detail.channel`;
 * cause: how the kit learned of it), refunded automatically: `duplicateRefunded` (or
 * `duplicateRefundFailed`, to be refunded by hand) follows.
 */
export interface ConsoleTimelineEvent {
  at: string;
  kind:
    | 'created'
    | 'channelOrder'
    | 'channelOrderClosed'
    | 'paid'
    | 'expired'
    | 'refundRequested'
    | 'refundCompleted'
    | 'refundFailed'
    | 'callback'
    | 'sharingRequested'
    | 'sharingResult'
    | 'duplicatePaid'
    | 'duplicateRefunded'
    | 'duplicateRefundFailed';
  cause: string;
  detail?: Record<string, string>;
}

export interface ConsoleSplit {
  outOrderNo: string;
  kind: string;
  state: string;
  amount: string;
  createdAt: string;
  receivers: Array<{ type: string; account: string; amount: string; result: string; failReason?: string; finishTime?: string }>;
}

export interface ConsoleOrderDetail extends ConsoleOrderLine {
  merchantName: string;
  timeline: ConsoleTimelineEvent[];
  callbacks: CallbackItem[];
  splits: ConsoleSplit[];
  /** 4.6: a paid order, not refunded and no refund under way. */
  refundable: boolean;
  refund: { state: string; amount: string; requestedAt: string; completedAt?: string; error?: string } | null;
  /** Second payments of the order (an order is paid once), each refunded automatically; empty for almost every order. */
  duplicatePayments: ConsoleDuplicatePayment[];
}

/** A second payment of a paid order through another channel order, and its automatic refund. */
export interface ConsoleDuplicatePayment {
  channel: string;
  outTradeNo: string;
  transactionId: string;
  amount: string;
  paidAt?: string;
  /** The refund's state: `requesting`, `accepted`, `success` or `failed` (then `error`). */
  refundState: string;
  outRefundNo: string;
  refundedAt?: string;
  error?: string;
}

export interface ConsoleReceived {
  at: string;
  url: string;
  body: string;
  signature: string;
  prepayId?: string;
  status?: string;
}

/** A reconciled day of one channel, with the login's merchants' differences counted (newest first). */
export interface ConsoleReconciliationDay {
  date: string;
  channel: string;
  /** `pending`: the channel has not made the day's bill yet; `failed`: it could not be had or read (`error` says why); the day is retried. */
  state: 'running' | 'done' | 'pending' | 'failed';
  error?: string;
  differences: number;
  open: number;
  byKind: Partial<Record<DifferenceKind, number>>;
  byResolution: Partial<Record<DifferenceResolution, number>>;
}

/** A day's report of one channel: the login's merchants' differences, open ones first. */
export interface ConsoleReconciliationReport {
  date: string;
  channel: string;
  /** The login's merchants' share of the channel's bill: what `kit reconcile` prints for the whole bill. */
  totals: ReconciliationTotals;
  differences: ReconciliationDifference[];
}

/**
 * What "Reconcile now" did with one channel's bill of the day: reconciled (`done`), not made by the
 * channel yet (`not_ready`: the daily run tries again) or not to be had or read (`failed`), with why.
 */
export interface ConsoleReconcileRun {
  channel: string;
  outcome: 'done' | 'not_ready' | 'failed';
  error?: string;
}
