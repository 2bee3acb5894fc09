/**
 * Table types for Kysely. Times are Unix milliseconds (bigint in PostgreSQL, parsed to number);
 * booleans are 0/1 integers so one code path serves SQLite and PostgreSQL; JSON is stored as text.
 */
import type { Generated, Kysely, Transaction } from 'kysely';
import type { ChainTables } from '../chain/tables';
import type { JobTables } from '../jobs/job-tables';
import type { ProfitSharingTables } from '../profit-sharing/ps-tables';
import type { ReconciliationTables } from '../reconciliation/recon-tables';
import type { MiniProgramTables } from '../mini-program/mp-tables';

/** What a store method runs on: the database, or the caller's open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface AppsTable {
  app_id: string;
  secret_enc: string;
  name: string | null;
  disabled: number;
  created_at: number;
}

/** Failed logins per key (`account:<id>`, `address:<ip>`): the brute-force limit. */
export interface LoginFailuresTable {
  key: string;
  failures: number;
  window_start: number;
  lockouts: number;
  blocked_until: number;
}

export interface ReplayGuardTable {
  app_id: string;
  sig: string;
  expires_at: number;
}

export interface MerchantsTable {
  id: string;
  kind: 'merchant' | 'subMerchant';
  display_name: string;
  pw_hash: string;
  disabled: number;
  app_id: string;
  created_by_app_id: string;
  parent_merchant_id: string | null;
  /** Contracted for profit sharing (set by an operator with `kit merchant contract`). */
  profit_sharing_contracted: number;
  created_at: number;
}

export interface LoginTokensTable {
  token_hash: string;
  merchant_id: string;
  created_at: number;
}

export interface PaymentParamsTable {
  merchant_id: string;
  channel: string;
  params_json: string;
  updated_at: number;
}

export interface PrepayOrdersTable {
  prepay_id: string;
  sub_merchant_id: string;
  merchant_id: string;
  app_id: string;
  total_cents: number;
  discount_cents: number;
  extra_info: string | null;
  status: 'active' | 'finish' | 'cancel' | 'refunded';
  create_time: number;
  payment_time: number | null;
  expire_at: number;
  updated_at: number;
}

export interface CoreTables {
  apps: AppsTable;
  replay_guard: ReplayGuardTable;
  login_failures: LoginFailuresTable;
  merchants: MerchantsTable;
  login_tokens: LoginTokensTable;
  payment_params: PaymentParamsTable;
  prepay_orders: PrepayOrdersTable;
}

// Payments: channel orders, refunds, callback attempts. (The sandbox's tables are its own: `sandbox/src/sandbox-tables.ts`, in `@kit/sandbox`.)

/**
 * A channel order: `creating` until the channel answers the unified order (a crash can leave it
 * there; the next request resumes it), `open` while payable, then `paid`, `closed` (closed at the
 * channel, or replaced) or `failed` (the channel refused it, or never received it). A payment code
 * scanned at the counter (7.4) is `creating` while the platform is asked, `open` while the payer
 * confirms on the phone, and `cancelled` once the kit cancels it there (which returns any money
 * taken: unlike a closed order's, a payment of it never counts).
 */
export type ChannelOrderState = 'creating' | 'open' | 'paid' | 'closed' | 'failed' | 'cancelled';

/**
 * How the kit learned that a channel order was paid: the channel's payment notification, an order
 * query (payment reconciliation, the check before expiry, a close answered "paid"), the daily
 * statement reconciliation, or the platform's answer to a payment code scanned at the counter.
 */
export type PaidVia = 'notification' | 'query' | 'reconciliation' | 'answer';

/**
 * A refund: `requesting` until the channel accepts it (a crash or a lost call leaves it there; a
 * worker resumes it), `accepted` until the channel completes it, then `success`; `failed` when the
 * channel refused or closed it (the merchant may ask again: the same refund number is reused).
 */
export type RefundState = 'requesting' | 'accepted' | 'success' | 'failed';

export interface PayChannelOrdersTable {
  out_trade_no: string;
  prepay_id: string;
  channel: string;
  trade_type: string;
  /** The notification carries no sign type: the order remembers the one it was placed with. */
  sign_type: string;
  open_id: string | null;
  profit_sharing: number;
  state: ChannelOrderState;
  total_cents: number;
  /** The unified-order request's merchant fields (JSON), checked against notifications. */
  merchant_json: string;
  channel_prepay_id: string | null;
  code_url: string | null;
  /** The channel's unified-order answer (JSON): the scan-code `args`. */
  answer_json: string | null;
  transaction_id: string | null;
  paid_at: number | null;
  /** Set with `paid_at`; null on rows paid before the kit kept it (migration 0008). */
  paid_via: PaidVia | null;
  created_at: number;
  updated_at: number;
}

export interface PayRefundsTable {
  prepay_id: string;
  out_refund_no: string;
  out_trade_no: string;
  channel: string;
  state: RefundState;
  refund_cents: number;
  refund_id: string | null;
  requested_by: string;
  app_id: string;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/**
 * A second payment of an order through another of its channel orders, refunded automatically
 * (`payments/duplicate-payments.ts`): its refund's state as for `pay_refunds`, keyed by the channel
 * order paid twice.
 */
export interface PayDuplicatePaymentsTable {
  out_trade_no: string;
  prepay_id: string;
  channel: string;
  out_refund_no: string;
  refund_cents: number;
  state: RefundState;
  refund_id: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/** One delivery attempt of a merchant callback (the callback itself is a job of queue `callback`). */
export interface CallbackAttemptsTable {
  id: Generated<number>;
  job_id: number;
  attempt: number;
  at: number;
  url: string | null;
  http_status: number | null;
  latency_ms: number;
  response_head: string | null;
  error: string | null;
}

export interface PaymentTables {
  pay_channel_orders: PayChannelOrdersTable;
  pay_refunds: PayRefundsTable;
  pay_duplicate_payments: PayDuplicatePaymentsTable;
  callback_attempts: CallbackAttemptsTable;
}

/** The whole database: feature folders add their table interfaces here. */
export interface Database extends CoreTables, ChainTables, PaymentTables, JobTables, ProfitSharingTables, ReconciliationTables, MiniProgramTables {}
