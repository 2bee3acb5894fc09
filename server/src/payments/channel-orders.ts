/**
 * Channel orders: the one payable order at the channel behind a prepay order. Argument requests
 * reuse it, resume it when a crash left it half-created, or replace it (closing the old one first)
 * when the payer switches flows; expiry closes it before cancelling, and a close that finds it paid
 * records the payment instead.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { KitError } from '@kit/shared';
import { isUniqueViolation } from '../db/errors';
import type { PaidVia, PayChannelOrdersTable } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { Metrics } from '../metrics/metrics';
import type { ExpiryGuard } from '../orders/prepay-service';
import { randomAlnum } from '../security/ids';
import type { PaymentStore } from './payment-store';
import type { Providers } from './providers/in-use';
import {
  FLOW_COLUMN,
  refusalText,
  type MerchantRef,
  type OrderForChannel,
  type PaymentFacts,
  type PaymentFlow,
  type PaymentProvider,
} from './providers/provider';
import type { Settlement } from './settlement';

export interface ChannelOrderOptions {
  /** Waits between order queries after a channel order is placed (PAYMENT_QUERY_SCHEDULE). */
  querySchedule: readonly number[];
  /** Time limit of one channel call (PAY_GATEWAY_TIMEOUT): a channel order `creating` for longer was interrupted. */
  channelTimeoutMs: number;
}

/**
 * The payload of a closed channel order's follow-up job while its platform may still take a
 * payment of it (`ChannelOrders.closed`, read by `PaymentFollower`).
 */
export interface ClosedWatch {
  /** Unix ms: the platform can no longer take a payment of it after this. */
  payableUntil: number;
}

/** The watch a follow-up job's payload holds, if any. */
export function closedWatchOf(payload: string): ClosedWatch | undefined {
  const p = JSON.parse(payload) as Partial<ClosedWatch> | null;
  return typeof p?.payableUntil === 'number' ? { payableUntil: p.payableUntil } : undefined;
}

/** The payload of a payment code's follow-up job (`code-payment-follow.ts`): until when the payer may confirm. */
export interface CodeWatch {
  /** Unix ms: the kit cancels the trade if the payer has not confirmed by then (CODE_PAY_WAIT). */
  confirmUntil: number;
}

export function codeWatchOf(payload: string): CodeWatch | undefined {
  const p = JSON.parse(payload) as Partial<CodeWatch> | null;
  return typeof p?.confirmUntil === 'number' ? { confirmUntil: p.confirmUntil } : undefined;
}

/** Whether a channel order is a payment code scanned at the counter (7.4). */
export const isCodePayment = (co: Pick<PayChannelOrdersTable, 'trade_type'>): boolean => co.trade_type === FLOW_COLUMN.code;

/** What a request wants from the channel. Two requests wanting the same thing share one channel order. */
export interface ChannelOrderWish {
  provider: PaymentProvider;
  flow: PaymentFlow;
  openId: string | null;
  profitSharing: boolean;
  merchant: MerchantRef;
}

/** Rounds of "someone else changed it meanwhile" before a request gives up and asks for a retry. */
const MAX_ROUNDS = 10;

export class ChannelOrders implements ExpiryGuard {
  /** Placements in flight in this process: concurrent requests for the same channel order share one call. */
  private readonly placing = new Map<string, Promise<PayChannelOrdersTable | undefined>>();
  /** Per prepay order, the end of the last request for its channel order in this process. */
  private readonly switching = new Map<string, Promise<void>>();

  constructor(
    private readonly store: PaymentStore,
    private readonly providers: Providers,
    private readonly settlement: Settlement,
    private readonly jobs: Jobs,
    private readonly opts: ChannelOrderOptions,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly metrics?: Pick<Metrics, 'reconciliation'>,
  ) {}

  /** Orders with a request or a channel call in flight in this process: 0 once every call has ended (the maps are keyed by order, so they must empty). */
  get inFlight(): number {
    return this.switching.size + this.placing.size;
  }

  /**
   * The payable channel order for `wish`: the existing one when it matches; a half-created one
   * (left by a request still waiting for the channel, or by a crash) is placed again under the
   * same `out_trade_no`, which the channel treats as the same order; a different one is closed
   * at the channel first, so that only one order can ever be paid.
   */
  payableFor(order: OrderForChannel, wish: ChannelOrderWish): Promise<PayChannelOrdersTable> {
    return this.oneAtATime(order.prepay_id, () => this.payableNow(order, wish));
  }

  /**
   * Runs the requests of one order one after the other in this process: requests switching trade
   * types (4.3/4.4/4.5 at once) would otherwise close each other's channel orders in turn. Between
   * instances the states of the rows (and `close` reading the channel) keep it right.
   */
  private oneAtATime<T>(prepayId: string, fn: () => Promise<T>): Promise<T> {
    const before = this.switching.get(prepayId) ?? Promise.resolve();
    const run = before.then(fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.switching.set(prepayId, settled);
    void settled.then(() => {
      if (this.switching.get(prepayId) === settled) this.switching.delete(prepayId);
    });
    return run;
  }

  /**
   * A new channel order for a payment code (7.4), `creating`, with the follow-up job that cancels it
   * unless the platform says it was paid (`code-payment-follow.ts`): written before the platform is
   * asked, so that no crash can leave a payer charged for an order the kit shows unpaid. The order's
   * other payable channel order is closed first; one code at a time: while a code is being charged
   * or confirmed, another is refused (`code_payment_waiting`).
   */
  forCode(order: OrderForChannel, provider: PaymentProvider, merchant: MerchantRef, confirmUntil: number): Promise<PayChannelOrdersTable> {
    return this.oneAtATime(order.prepay_id, async () => {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const existing = await this.store.payableChannelOrder(order.prepay_id);
        if (existing && isCodePayment(existing))
          throw new KitError('code_payment_waiting', `prepay order "${order.prepay_id}" has a payment code being charged or confirmed; wait for its end`);
        if (existing) {
          if ((await this.close(existing)) === 'paid') throw new KitError('order_not_active', `prepay order "${order.prepay_id}" has just been paid`);
          continue;
        }
        const row = this.newRow(order, { provider, flow: 'code', openId: null, profitSharing: false, merchant });
        const watch: CodeWatch = { confirmUntil };
        try {
          await this.store.db.transaction().execute(async (trx) => {
            await this.store.insertChannelOrder(trx, row);
            // Due once the platform's answer can no longer come: a request that died with its call is finished by the job.
            const at = row.created_at + this.opts.channelTimeoutMs + 1_000;
            await this.jobs.enqueue(trx, { queue: 'payment.reconcile', key: row.out_trade_no, ref: row.prepay_id, at, payload: watch });
          });
          return row;
        } catch (e) {
          if (!isUniqueViolation(e)) throw e;
          // Another request placed a channel order meanwhile: look again.
        }
      }
      throw new KitError('channel_unavailable', `prepay order "${order.prepay_id}" is being changed by other requests; retry`);
    });
  }

  private async payableNow(order: OrderForChannel, wish: ChannelOrderWish): Promise<PayChannelOrdersTable> {
    // Another request (on another instance) placing a channel order for the same order is waited
    // for, not interrupted: its request answers with it, and closing it under its feet only makes
    // both start again. The `creating` row is the order's lock between instances for as long as a
    // call may take; rounds count only what this request itself changed.
    const waitUntil = this.clock.now() + 2 * this.opts.channelTimeoutMs + 1_000;
    let rounds = 0;
    // A short look again at the row, on the machine's timer: the other request's progress, not the business's time.
    // eslint-disable-next-line no-restricted-syntax -- a look again at another request's progress; its deadline is the clock's
    const wait = () => new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
    while (rounds < MAX_ROUNDS) {
      const existing = await this.store.payableChannelOrder(order.prepay_id);
      if (existing && matches(existing, wish)) {
        if (existing.state === 'open') return existing;
        rounds++;
        const placed = await this.place(existing, order, wish.provider);
        if (placed) return placed;
        continue;
      }
      if (existing && isCodePayment(existing))
        throw new KitError('code_payment_waiting', `prepay order "${order.prepay_id}" has a payment code being charged or confirmed; wait for its end`);
      if (existing) {
        const placing = existing.state === 'creating' && this.clock.now() - existing.updated_at < this.opts.channelTimeoutMs + 1_000;
        if (placing && this.clock.now() < waitUntil) {
          await wait();
          continue;
        }
        rounds++;
        if ((await this.close(existing)) === 'paid') throw new KitError('order_not_active', `prepay order "${order.prepay_id}" has just been paid`);
        continue;
      }
      const row = this.newRow(order, wish);
      try {
        await this.store.db.transaction().execute(async (trx) => {
          await this.store.insertChannelOrder(trx, row);
          // From now on the channel is asked about it until it is paid or closed, whatever happens to this request.
          await this.jobs.enqueue(trx, {
            queue: 'payment.reconcile',
            key: row.out_trade_no,
            ref: row.prepay_id,
            at: row.created_at + (this.opts.querySchedule[0] ?? 10_000),
          });
        });
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        // Another request is placing one: use it, or wait for it.
        if (this.clock.now() >= waitUntil) rounds++;
        continue;
      }
      rounds++;
      const placed = await this.place(row, order, wish.provider);
      if (placed) return placed;
    }
    throw new KitError('channel_unavailable', `prepay order "${order.prepay_id}" is being changed by other requests; retry`);
  }

  /** Places (or places again) a `creating` channel order; undefined when it stopped being the payable one meanwhile. */
  private place(co: PayChannelOrdersTable, order: OrderForChannel, provider: PaymentProvider): Promise<PayChannelOrdersTable | undefined> {
    let p = this.placing.get(co.out_trade_no);
    if (!p) {
      p = this.placeNow(co, order, provider).finally(() => this.placing.delete(co.out_trade_no));
      this.placing.set(co.out_trade_no, p);
    }
    return p;
  }

  private async placeNow(co: PayChannelOrdersTable, order: OrderForChannel, provider: PaymentProvider): Promise<PayChannelOrdersTable | undefined> {
    // Unreachable channel: the row stays `creating`; the next request (or the reconciliation job) resumes it.
    const placed = await provider.placeOrder(co, order);
    if (!placed.ok) {
      if (placed.refusal.meaning === 'closed') {
        await this.store.moveChannelOrder(this.store.db, co.out_trade_no, ['creating'], 'closed');
        return undefined;
      }
      await this.store.moveChannelOrder(this.store.db, co.out_trade_no, ['creating'], 'failed');
      throw new KitError('channel_error', `the channel refused the order: ${refusalText(placed.refusal)}`.trim());
    }
    const patch = { channel_prepay_id: placed.channelPrepayId, code_url: placed.codeUrl, answer_json: JSON.stringify(placed.scanArgs) };
    if (await this.store.moveChannelOrder(this.store.db, co.out_trade_no, ['creating'], 'open', patch)) return { ...co, ...patch, state: 'open' };
    const now = await this.store.channelOrder(co.out_trade_no);
    if (now?.state === 'open') return now;
    // Replaced (closed) while the channel was answering: make sure nobody can pay what was just placed.
    await this.closeQuietly(now ?? co);
    return undefined;
  }

  /**
   * Closes a channel order so it can no longer be paid: `closed`, or `paid` when the channel says
   * it was paid (the payment is then recorded from the channel's order query). Throws when the
   * channel cannot be reached or refuses while the order is still payable.
   */
  async close(co: PayChannelOrdersTable): Promise<'closed' | 'paid'> {
    const provider = this.providers.get(co.channel);
    const order = await this.store.orderWithMerchants(co.prepay_id);
    const answer = await provider.closeOrder(co, { expire_at: order?.expire_at ?? this.clock.now() });
    if (answer.ok || answer.refusal.meaning === 'closed' || answer.refusal.meaning === 'not_found') {
      await this.closed(co, answer.ok ? answer.payableUntil : undefined);
      return 'closed';
    }
    // Any other refusal is checked against the order query, which is authoritative: the refusal a
    // platform gives for closing a paid order is not pinned down for every protocol, and "paid" is
    // only believed from the query anyway, which then settles it like a notification would (a
    // close racing another close can be answered "paid" although the order was closed).
    const refusal = refusalText(answer.refusal);
    const q = await provider.queryOrder(co);
    if (q.ok && q.state === 'paid') {
      await this.recordQueriedPayment(co, q);
      return 'paid';
    }
    if ((q.ok && q.state === 'closed') || (!q.ok && q.refusal.meaning === 'not_found')) {
      await this.closed(co);
      return 'closed';
    }
    if (!q.ok) {
      throw new KitError(
        'channel_unavailable',
        `the channel did not close the order (${refusal}) and its order query failed: ${refusalText(q.refusal)}; retry`,
      );
    }
    if (answer.refusal.meaning === 'paid') {
      throw new KitError('channel_unavailable', `the channel answered that the order was paid, but its order query says ${q.stateText}; retry`);
    }
    // Still payable (not paid yet, or the payer is paying): the refusal stands.
    throw new KitError('channel_error', `the channel did not close the order: ${refusal} (its order query says ${q.stateText})`);
  }

  /**
   * Closed in the kit. Its follow-up ends, unless the platform may still take a payment of it until
   * `payableUntil` (the close changed nothing there): then the follow-up goes on asking about it on
   * `PAYMENT_QUERY_SCHEDULE`, and once more when it can no longer be paid (`PaymentFollower`), so
   * that a payment whose notification is lost (a second one: docs/payments.md "Paid once") is found
   * without waiting for the day's bill.
   */
  private async closed(co: PayChannelOrdersTable, payableUntil?: number): Promise<void> {
    const now = this.clock.now();
    const watched = payableUntil !== undefined && payableUntil > now;
    await this.store.db.transaction().execute(async (trx) => {
      await this.store.moveChannelOrder(trx, co.out_trade_no, ['open', 'creating', 'failed'], 'closed');
      if (watched) {
        const watch: ClosedWatch = { payableUntil };
        const at = Math.min(now + (this.opts.querySchedule[0] ?? 10_000), payableUntil);
        await this.jobs.enqueue(trx, { queue: 'payment.reconcile', key: co.out_trade_no, ref: co.prepay_id, at, payload: watch }, 'rearm');
      } else await this.jobs.finish(trx, 'payment.reconcile', co.out_trade_no, 'closed');
    });
  }

  /** A close whose failure only matters to the reconciliation job, which retries it. */
  private async closeQuietly(co: PayChannelOrdersTable): Promise<void> {
    try {
      await this.close(co);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, outTradeNo: co.out_trade_no }, 'closing a replaced channel order failed; reconciliation retries it');
      await this.jobs.enqueue(
        this.store.db,
        { queue: 'payment.reconcile', key: co.out_trade_no, ref: co.prepay_id, at: this.clock.now() + (this.opts.querySchedule[0] ?? 10_000) },
        'rearm',
      );
    }
  }

  /**
   * Right before an order expires (docs/payments.md): close what is still payable at the channel. When
   * the channel says it was paid, the payment is recorded and the order must not be cancelled.
   * When the channel cannot be reached, the order expires anyway (the channel order carries the
   * same expiry, so the channel refuses later payments) and reconciliation keeps asking.
   */
  async beforeExpiry(prepayId: string): Promise<'paid' | 'unpaid'> {
    const co = await this.store.payableChannelOrder(prepayId);
    if (!co) return 'unpaid';
    if (isCodePayment(co)) {
      // A payment code being confirmed is its follow-up's to end: due now, it finds the order ended and cancels the code.
      await this.jobs.enqueue(this.store.db, { queue: 'payment.reconcile', key: co.out_trade_no, ref: co.prepay_id, at: this.clock.now() }, 'rearm');
      this.jobs.wake('payment.reconcile');
      return 'unpaid';
    }
    try {
      const closed = await this.close(co);
      this.metrics?.reconciliation('expiry_close', closed);
      return closed === 'paid' ? 'paid' : 'unpaid';
    } catch (err) {
      this.metrics?.reconciliation('expiry_close', 'failed');
      this.log.warn(
        { err: (err as Error).message, prepayId, outTradeNo: co.out_trade_no },
        'the channel order of an expiring order could not be closed; reconciliation retries it',
      );
      await this.jobs.enqueue(
        this.store.db,
        { queue: 'payment.reconcile', key: co.out_trade_no, ref: co.prepay_id, at: this.clock.now() + (this.opts.querySchedule[0] ?? 10_000) },
        'rearm',
      );
      this.jobs.wake('payment.reconcile');
      return 'unpaid';
    }
  }

  /**
   * Records a payment the channel reported in an order-query answer, after checking it against the order;
   * `via` says what led to the query (the console's timeline shows it).
   */
  async recordQueriedPayment(co: PayChannelOrdersTable, facts: PaymentFacts, via: PaidVia = 'query'): Promise<void> {
    if (facts.mismatch) throw new KitError('channel_error', `the channel's order query does not match the order: ${facts.mismatch}`);
    await this.settlement.recordPayment(co, { transactionId: facts.transactionId as string, paidAt: facts.paidAt }, via);
  }

  private newRow(order: OrderForChannel, wish: ChannelOrderWish): PayChannelOrdersTable {
    const now = this.clock.now();
    return {
      out_trade_no: randomAlnum(28),
      prepay_id: order.prepay_id,
      channel: wish.provider.channel,
      trade_type: FLOW_COLUMN[wish.flow],
      sign_type: wish.provider.signType(),
      open_id: wish.openId,
      profit_sharing: wish.profitSharing ? 1 : 0,
      state: 'creating',
      total_cents: order.total_cents,
      merchant_json: JSON.stringify(wish.merchant),
      channel_prepay_id: null,
      code_url: null,
      answer_json: null,
      transaction_id: null,
      paid_at: null,
      paid_via: null,
      created_at: now,
      updated_at: now,
    };
  }
}

function matches(co: PayChannelOrdersTable, wish: ChannelOrderWish): boolean {
  return (
    co.channel === wish.provider.channel &&
    co.trade_type === FLOW_COLUMN[wish.flow] &&
    (co.open_id ?? null) === wish.openId &&
    co.profit_sharing === (wish.profitSharing ? 1 : 0) &&
    co.merchant_json === JSON.stringify(wish.merchant)
  );
}
