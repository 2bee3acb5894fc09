/**
 * Prepay orders (4.1, 4.2): creation, the detail answer, the held detail call, expiry. State
 * changes go through `OrderTransitions`, the one primitive every later feature (payment, refund) uses.
 */
import { AmountError, KitError, MAX_EXTRA_INFO_BYTES, PAY_VERSION, formatCents, parseCents, type CreatePrepayResponse, type PrepayDetail } from '@kit/shared';
import { randomAlnum } from '../security/ids';
import { isUniqueViolation } from '../db/errors';
import type { OrderEvents, WaitSignal } from './order-events';
import type { Executor, PrepayOrdersTable } from '../db/schema';
import type { SpentSignature } from '../apps/replay-guard';
import type { OrderStatus, PrepayStore } from './prepay-store';
import type { OrderTransitions } from './order-transitions';
import { orderVisibleTo } from './order-visibility';
import type { MerchantFacts } from '../merchants/merchant-facts';
import { subMerchantDisabled } from '../merchants/disabled';
import { isOverdue } from './order-expiry';
import type { Clock } from '@kit/shared/clock';

/** 12 characters keep `sm.pay?prepayid=<id>&f=2` within the 32-character scene limit. */
export const PREPAY_ID_LENGTH = 12;

export interface PrepayOptions {
  orderTtlMs: number;
  holdMs: number;
}

/**
 * What must happen before an order may expire: its channel order is closed first, and when the
 * channel says it was paid the order becomes `finish` instead (docs/payments.md). Payments provide it.
 */
export interface ExpiryGuard {
  beforeExpiry(prepayId: string): Promise<'paid' | 'unpaid'>;
}

/** Orders expired at once by one sweep; each may wait for a channel close. */
const EXPIRY_CONCURRENCY = 8;

export class PrepayService {
  constructor(
    private readonly store: PrepayStore,
    private readonly merchants: MerchantFacts,
    private readonly events: OrderEvents,
    private readonly transitions: OrderTransitions,
    /** The payments' channel orders: an order is closed at the channel before it expires. */
    private readonly guard: ExpiryGuard,
    private readonly opts: PrepayOptions,
    private readonly clock: Clock,
  ) {}

  /** 4.1. The signer must own the sub-merchant or its parent; both must be enabled. */
  /** 4.1. With `replay`, the signature is recorded in the replay guard with the order, or the call is refused as a replay. */
  async create(
    signerAppId: string,
    body: { subMerchantId: string; totalAmount?: unknown; extraInfo?: unknown },
    replay?: SpentSignature,
  ): Promise<CreatePrepayResponse> {
    let cents: number;
    try {
      cents = parseCents(body.totalAmount);
    } catch (e) {
      if (e instanceof AmountError) throw new KitError('invalid_amount', `totalAmount: ${e.message}`);
      throw e;
    }
    const extra = body.extraInfo === undefined || body.extraInfo === null ? null : JSON.stringify(body.extraInfo);
    if (extra !== null && Buffer.byteLength(extra) > MAX_EXTRA_INFO_BYTES) {
      throw new KitError('invalid_request', `extraInfo: must be at most ${MAX_EXTRA_INFO_BYTES} bytes as JSON`);
    }
    const sm = await this.merchants.get(body.subMerchantId);
    if (!sm || sm.kind !== 'subMerchant') throw new KitError('unknown_merchant', `sub-merchant "${body.subMerchantId}" does not exist`);
    if (sm.app_id !== signerAppId && sm.parent_app_id !== signerAppId) {
      throw new KitError('not_owner', `app "${signerAppId}" does not own sub-merchant "${body.subMerchantId}"`);
    }
    const disabled = subMerchantDisabled({ id: sm.id, disabled: sm.disabled, parentId: sm.parent_merchant_id, parentDisabled: sm.parent_disabled });
    if (disabled) throw disabled;
    const now = this.clock.now();
    for (let attempt = 0; ; attempt++) {
      const prepayId = randomAlnum(PREPAY_ID_LENGTH);
      try {
        const row: PrepayOrdersTable = {
          prepay_id: prepayId,
          sub_merchant_id: sm.id,
          merchant_id: sm.parent_merchant_id ?? sm.id,
          app_id: signerAppId,
          total_cents: cents,
          discount_cents: 0,
          extra_info: extra,
          status: 'active',
          create_time: now,
          payment_time: null,
          expire_at: now + this.opts.orderTtlMs,
          updated_at: now,
        };
        if (!replay) await this.store.insert(row);
        else if (!(await this.store.insertGuarded(row, replay))) {
          throw new KitError('signature_replayed', 'this signature was already used; sign the retry with a new _t');
        }
        return { version: PAY_VERSION, status: 'success', prepayId };
      } catch (e) {
        if (!isUniqueViolation(e) || attempt >= 3) throw e;
      }
    }
  }

  /**
   * 4.2. With `wait`, holds until the order leaves `active`, the hold time passes, the order
   * expires or the caller goes away. Readable by the creating app and the owners of the
   * sub-merchant and its parent; anyone else gets "not found".
   */
  async detail(appId: string, prepayId: string, opts: { wait?: boolean; signal?: WaitSignal } = {}): Promise<PrepayDetail> {
    if (!opts.wait) return toDetail(await this.readVisible(appId, prepayId));
    // Subscribe before the first read so that a change between the read and the wait is not missed.
    const holdUntil = this.clock.now() + this.opts.holdMs;
    const waiter = this.events.wait(prepayId, this.opts.holdMs, opts.signal);
    try {
      let row = await this.readVisible(appId, prepayId);
      if (row.status === 'active') {
        const untilExpiry = row.expire_at - this.clock.now();
        if (untilExpiry < holdUntil - this.clock.now()) this.clock.setTimeout(waiter.cancel, Math.max(0, untilExpiry + 5)).unref();
        await waiter.ready;
        row = await this.readVisible(appId, prepayId);
      }
      return toDetail(row);
    } finally {
      waiter.cancel();
    }
  }

  /** The order and its sub-merchant's name, if `appId` may see it: one primary-key read plus cached merchant facts. */
  private async readVisible(appId: string, prepayId: string) {
    const order = await this.store.find(prepayId);
    const sm = order && (await this.merchants.get(order.sub_merchant_id));
    if (!order || !sm || !orderVisibleTo({ app_id: order.app_id, sub_app_id: sm.app_id, parent_app_id: sm.parent_app_id }, appId)) {
      throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    }
    const row = { ...order, display_name: sm.display_name };
    if (isOverdue(row, this.clock.now())) {
      await this.expire(prepayId);
      const now = await this.store.find(prepayId);
      return { ...row, ...now };
    }
    return row;
  }

  /** See `OrderTransitions.transition` (operators and tests move orders through the service). */
  transition(on: Executor, prepayId: string, from: OrderStatus, to: OrderStatus, patch: { payment_time?: number } = {}): Promise<boolean> {
    return this.transitions.transition(on, prepayId, from, to, patch);
  }

  /** See `OrderTransitions.announce`. */
  announce(prepayId: string, status: OrderStatus): void {
    this.transitions.announce(prepayId, status);
  }

  /**
   * `active` → `cancel` once the guard has closed the order at the channel; not when the channel
   * says it was paid (the order is then `finish`). True when this call cancelled it.
   */
  async expire(prepayId: string): Promise<boolean> {
    if ((await this.guard.beforeExpiry(prepayId)) === 'paid') return false;
    const changed = await this.transition(this.store.db, prepayId, 'active', 'cancel');
    if (changed) this.announce(prepayId, 'cancel');
    return changed;
  }

  /** Expiry sweep: every active order past its time, a few at a time. Returns how many were cancelled. */
  async expireDue(now = this.clock.now()): Promise<number> {
    const due = await this.store.dueForExpiry(now);
    let cancelled = 0;
    for (let i = 0; i < due.length; i += EXPIRY_CONCURRENCY) {
      const done = await Promise.all(due.slice(i, i + EXPIRY_CONCURRENCY).map((id) => this.expire(id)));
      cancelled += done.filter(Boolean).length;
    }
    return cancelled;
  }

  find(prepayId: string, on?: Executor) {
    return this.store.find(prepayId, on);
  }

  /** The app owning the order's sub-merchant (the mini-program router signs as it); undefined for no such order. */
  async subMerchantAppOf(prepayId: string): Promise<string | undefined> {
    const order = await this.store.find(prepayId);
    return order && (await this.merchants.get(order.sub_merchant_id))?.app_id;
  }

  listForSubMerchant(subMerchantId: string, since: number) {
    return this.store.listForSubMerchant(subMerchantId, since);
  }
  listForSubMerchants(subMerchantIds: string[], since: number, until: number, status?: OrderStatus) {
    return this.store.listForSubMerchants(subMerchantIds, since, until, status);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

export function toDetail(row: {
  status: OrderStatus;
  display_name: string;
  total_cents: number;
  discount_cents: number;
  create_time: number;
  payment_time: number | null;
}): PrepayDetail {
  const detail: PrepayDetail = {
    version: PAY_VERSION,
    status: row.status,
    merchantDisplayName: row.display_name,
    totalAmount: formatCents(row.total_cents),
    disconut: formatCents(row.discount_cents),
    createTime: iso(row.create_time),
  };
  if (row.payment_time !== null && row.payment_time !== undefined) detail.paymentTime = iso(row.payment_time);
  return detail;
}
