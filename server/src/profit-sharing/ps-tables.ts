/** Table types of profit sharing (migration 0005_profit_sharing), the kit's side. (The sandbox platform's are its own: `sandbox/src/sandbox-tables.ts`.) */
import type { ReceiverResult, ReceiverType } from '@kit/shared';

/** A receiver added for a merchant (and its sub-merchants' orders); `removed_at` set when removed. */
export interface PsReceiversTable {
  merchant_id: string;
  type: ReceiverType;
  account: string;
  name: string | null;
  relation_type: string;
  /** The relation in the merchant's words, with relation type `CUSTOM` only (migration 0010). */
  custom_relation: string | null;
  created_at: number;
  updated_at: number;
  removed_at: number | null;
}

export interface PsChannelReceiversTable {
  /** The merchant number at the channel (`sub_mch_id`) the receiver was added for. */
  channel_mch_id: string;
  type: ReceiverType;
  account: string;
  added_at: number;
}

/** `open` while splits may come; `finished` once a finish (or a split with `finish`) was accepted. */
export type PsOrderState = 'open' | 'finished';

/** The sharing state of one paid order. */
export interface PsOrdersTable {
  prepay_id: string;
  total_cents: number;
  max_share_cents: number;
  shared_cents: number;
  state: PsOrderState;
  /** When the channel released what was not shared (the finish was accepted). */
  unfrozen_at: number | null;
  updated_at: number;
}

export type PsRequestKind = 'split' | 'finish';
/**
 * `requesting` until the channel accepted it (a crash or a lost call leaves it there; a worker
 * sends it again under the same number), `processing` while receivers' results are pending,
 * `finished` when every result is final; `failed` when the channel refused it.
 */
export type PsRequestState = 'requesting' | 'processing' | 'finished' | 'failed';

/** One receiver of a split, with its result as the channel reports it. */
export interface PsShare {
  type: ReceiverType;
  account: string;
  amountCents: number;
  description: string;
  result: ReceiverResult;
  failReason?: string;
  finishTime?: string;
}

export interface PsRequestsTable {
  /** Our own number, sent to the channel as `out_order_no`. */
  id: string;
  prepay_id: string;
  /** The merchant's number, unique per order. */
  out_order_no: string;
  kind: PsRequestKind;
  /** A split that also finishes the order's sharing. */
  finish: number;
  /** `PsShare[]` as JSON (empty for a finish). */
  receivers_json: string;
  /** A finish's description. */
  description: string | null;
  amount_cents: number;
  state: PsRequestState;
  /** The channel's number for it, once accepted. */
  channel_order_id: string | null;
  app_id: string;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ProfitSharingTables {
  ps_receivers: PsReceiversTable;
  ps_channel_receivers: PsChannelReceiversTable;
  ps_orders: PsOrdersTable;
  ps_requests: PsRequestsTable;
}
