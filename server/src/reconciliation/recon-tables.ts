/** Reconciliation's tables (migration 0009_reconciliation): one report per day and channel, the bill's lines, the differences. */

/**
 * `running` while a run is under way; `done` once the day was matched (a day without a bill, when the
 * channel says there is none, is done with zero totals); `pending` while the channel has not made
 * the day's bill yet (`error` says until when; the daily job tries again); `failed` when the bill
 * could not be had or read (`error` says why).
 */
export const REPORT_STATES = ['running', 'done', 'pending', 'failed'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

export const DIFFERENCE_KINDS = ['status_mismatch', 'amount_mismatch', 'channel_only', 'kit_only'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/**
 * - `settled` / `refunded`: the channel confirmed a payment or refund the kit had not recorded; the kit
 *   recorded it through the notification path (one transition, one callback);
 * - `open`: a person has to look (docs/reconciliation.md);
 * - `pending_next_day`: a kit-only line waiting for the next day's bill;
 * - `found_next_day`: it was in the next day's bill: nothing to do.
 */
export const RESOLUTIONS = ['settled', 'refunded', 'open', 'pending_next_day', 'found_next_day'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export interface ReconReportsTable {
  day: string;
  channel: string;
  state: ReportState;
  /** The bill's totals (JSON, decimal strings), once done. */
  totals_json: string | null;
  /** Whether the channel had a bill that day (`NO_STATEMENT_EXIST` is an answer: no trade). */
  had_bill: number;
  error: string | null;
  runs: number;
  created_at: number;
  updated_at: number;
  done_at: number | null;
}

export interface ReconBillLinesTable {
  day: string;
  channel: string;
  line_no: number;
  kind: 'payment' | 'refund';
  out_trade_no: string;
  out_refund_no: string | null;
  status: string;
  amount_cents: number;
  fee_units: number;
  transaction_id: string;
  refund_id: string | null;
  sub_mch_id: string;
  time: string;
}

export interface ReconDifferencesTable {
  day: string;
  channel: string;
  kind: DifferenceKind;
  out_trade_no: string;
  /** '' for a payment (so that the key is unique on both databases). */
  out_refund_no: string;
  prepay_id: string | null;
  /** The merchant the line belongs to, when the kit knows it (who may read it). */
  sub_merchant_id: string | null;
  /** The channel's merchant number of the line (a `channel_only` line's only owner). */
  channel_mch_id: string | null;
  /** `{status, amount}` (amount a decimal string) or null, JSON. */
  kit_json: string;
  channel_json: string;
  resolution: Resolution;
  created_at: number;
  updated_at: number;
}

export interface ReconciliationTables {
  recon_reports: ReconReportsTable;
  recon_bill_lines: ReconBillLinesTable;
  recon_differences: ReconDifferencesTable;
}
