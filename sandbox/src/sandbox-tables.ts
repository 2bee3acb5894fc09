/**
 * The sandbox's own tables (docs/sandbox.md): the platform's orders, refunds and login codes, and
 * its profit-sharing side. Not part of the service's schema (`db/schema.ts`): they are created by
 * the sandbox's own migrations (`migrations/`), applied only when SANDBOX_ENABLED, and
 * only the sandbox reads them (its store sees the database as `SandboxDatabase`).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '@kit/server/plugins/dev-plugin';

/** The platform's trade states the sandbox keeps (the order query reports them as `trade_state`). */
export type SandboxOrderState = 'NOTPAY' | 'SUCCESS' | 'CLOSED' | 'REFUND' | 'USERPAYING' | 'REVOKED' | 'PAYERROR';

export interface SandboxOrdersTable {
  prepay_id: string;
  realm: string;
  code_token: string | null;
  appid: string;
  mch_id: string;
  sub_appid: string | null;
  sub_mch_id: string | null;
  device_info: string | null;
  out_trade_no: string;
  body: string;
  total_fee: number;
  trade_type: string;
  openid: string | null;
  sub_openid: string | null;
  notify_url: string;
  sign_type: string;
  profit_sharing: number;
  time_expire: number | null;
  state: SandboxOrderState;
  transaction_id: string | null;
  paid_at: number | null;
  /** Profit-sharing orders: when their sharing was finished and the rest released (frozen until then). */
  unfrozen_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A refund's final state at the platform; before `success_at` the refund query reports it as PROCESSING. */
export type SandboxRefundState = 'SUCCESS' | 'REFUNDCLOSE' | 'CHANGE';

export interface SandboxRefundsTable {
  refund_id: string;
  realm: string;
  mch_id: string;
  out_refund_no: string;
  prepay_id: string;
  refund_fee: number;
  notify_url: string | null;
  state: SandboxRefundState;
  created_at: number;
  success_at: number | null;
}

export interface SandboxLoginCodesTable {
  code: string;
  user_name: string;
  expires_at: number;
}

export interface SandboxPsReceiversTable {
  mch_id: string;
  sub_mch_id: string;
  type: string;
  account: string;
  name: string | null;
  relation_type: string;
  /** With relation type `CUSTOM` only (migration 0002). */
  custom_relation: string | null;
  added_at: number;
  removed_at: number | null;
}

export interface SandboxPsOrdersTable {
  order_id: string;
  mch_id: string;
  sub_mch_id: string;
  out_order_no: string;
  /** The sandbox order (its `prepay_id`) being shared. */
  prepay_id: string;
  kind: 'split' | 'finish';
  /** `[{type, account, amount, description}]` as sent. */
  receivers_json: string;
  amount: number;
  description: string | null;
  created_at: number;
  /** When the receivers' results are decided (a second or so after the request, like the platform). */
  results_at: number;
  /** The results once decided (kept: a receiver added again later does not change them). */
  results_json: string | null;
}

// A type, not an interface: Kysely's `withTables` wants an index-signature-compatible record.
/** An access token the mini-program's `stable_token` handed out. */
export interface SandboxMpTokensTable {
  token: string;
  appid: string;
  /** 1: handed out by a forced refresh (`force_refresh: true`). */
  forced: number;
  issued_at: number;
  expires_at: number;
}

export type SandboxTables = {
  sandbox_mp_tokens: SandboxMpTokensTable;
  sandbox_orders: SandboxOrdersTable;
  sandbox_refunds: SandboxRefundsTable;
  sandbox_login_codes: SandboxLoginCodesTable;
  sandbox_ps_receivers: SandboxPsReceiversTable;
  sandbox_ps_orders: SandboxPsOrdersTable;
};

/** The database as the sandbox sees it: the service's tables (its notifications are jobs) and its own. */
export type SandboxDatabase = Database & SandboxTables;
export type SandboxExecutor = Kysely<SandboxDatabase> | Transaction<SandboxDatabase>;
