/**
 * 4.6: full refund of a paid order. Exactly one refund exists per order, however many requests
 * arrive at once; it is written together with its follow-up job (`refund.follow`), so that a refund
 * interrupted by a crash or a lost call is carried on by a worker without anyone asking again.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { KitError, PAY_VERSION, type RefundResponse } from '@kit/shared';
import { isUniqueViolation } from '../db/errors';
import type { PayChannelOrdersTable, PayRefundsTable } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { MerchantService } from '../merchants/merchant-service';
import { randomAlnum } from '../security/ids';
import type { Providers } from './providers/in-use';
import { orderVisibleTo } from '../orders/order-visibility';
import type { PaymentStore } from './payment-store';

export interface RefundOptions {
  /** Time limit of one channel call: a refund `requesting` for longer was interrupted. */
  channelTimeoutMs: number;
  /** Waits between refund queries once the channel accepted a refund (PAYMENT_QUERY_SCHEDULE). */
  querySchedule: readonly number[];
}

export class RefundService {
  constructor(
    private readonly store: PaymentStore,
    private readonly merchants: MerchantService,
    private readonly providers: Providers,
    private readonly jobs: Jobs,
    private readonly opts: RefundOptions,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * 4.6, by the login of the order's sub-merchant or parent, signed by an app that can see the
   * order. Success means the channel accepted the refund; it completes later (`refunded` callback).
   */
  async request(signerAppId: string, loginToken: string | undefined, prepayId: string): Promise<RefundResponse> {
    const who = await this.merchants.identify(loginToken);
    const order = await this.store.orderWithMerchants(prepayId);
    if (!order || !orderVisibleTo(order, signerAppId) || (who.merchantId !== order.sub_merchant_id && who.merchantId !== order.merchant_id)) {
      throw new KitError('not_found', `prepay order "${prepayId}" does not exist for this login`);
    }
    if (order.status === 'refunded') throw new KitError('order_already_refunded');
    if (order.status !== 'finish') throw new KitError('order_not_paid', `prepay order "${prepayId}" is ${order.status}; only a paid order can be refunded`);
    const co = await this.store.paidChannelOrder(prepayId);
    if (!co) throw new KitError('order_not_paid', `prepay order "${prepayId}" has no recorded payment`);
    const refund = await this.claim(co, who.merchantId, signerAppId);
    this.jobs.wake('refund.follow');
    try {
      await this.send(refund, co);
    } catch (e) {
      if (e instanceof KitError && e.error === 'channel_unavailable') {
        this.log.warn({ prepayId, err: e.message }, 'refund call did not reach the channel; the follow-up job resumes it');
        // The channel's own words (its code) stay in the answer.
        // `Retry-After`: when the refund, left `requesting` under its refund number, can be taken
        // over by a new request (the follow-up job sends it again then too), and not before the
        // channel's own wait.
        const takeover = Math.ceil((refund.updated_at + this.opts.channelTimeoutMs + 1_000 - this.clock.now()) / 1_000);
        const channelWait = (e.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? 1;
        throw new KitError(
          'channel_unavailable',
          `${e.message}; the refund stays requested under the same refund number and the service completes it on its own (a \`refunded\` callback follows)`,
          { retryAfterSeconds: Math.max(takeover, channelWait, 1) },
        );
      }
      throw e;
    }
    return { version: PAY_VERSION, status: 'success' };
  }

  /**
   * Sends the refund to the channel (again, after an interruption: the same refund number is the
   * same refund there). Accepted → `accepted`; refused → `failed` (throws `channel_error`);
   * unreachable, or an answer that decides nothing (the provider throws: a refusal the platform did
   * not sign) → stays `requesting` for the follow-up job (throws `channel_unavailable`, `channel_error`).
   */
  async send(refund: PayRefundsTable, co: PayChannelOrdersTable): Promise<'accepted'> {
    const provider = this.providers.get(co.channel);
    let answer;
    try {
      answer = await provider.refund(refund, co);
    } catch (e) {
      await this.store.noteRefundError(refund.prepay_id, (e as Error).message);
      throw e;
    }
    if (!answer.ok) {
      // "Try again later with the same refund number" is not a refusal.
      const why = `${answer.refusal.code}: ${answer.refusal.message}`;
      if (provider.isRetryable(answer.refusal)) {
        await this.store.noteRefundError(refund.prepay_id, why);
        throw new KitError('channel_unavailable', `the channel asks to retry the refund later: ${why}`);
      }
      await this.store.db.transaction().execute(async (trx) => {
        await this.store.moveRefund(trx, refund.prepay_id, ['requesting'], 'failed', { last_error: why });
        await this.jobs.finish(trx, 'refund.follow', refund.prepay_id, 'refused');
      });
      throw new KitError('channel_error', `the channel refused the refund: ${why}`.trim());
    }
    await this.store.db.transaction().execute(async (trx) => {
      await this.store.moveRefund(trx, refund.prepay_id, ['requesting'], 'accepted', { refund_id: answer.refundId, last_error: null });
      // The notification normally completes it; if it never comes, ask the channel.
      await this.jobs.enqueue(trx, this.followJob(refund.prepay_id, this.clock.now() + (this.opts.querySchedule[0] ?? 10_000)), 'rearm');
    });
    return 'accepted';
  }

  /**
   * The order's one refund, claimed for this request: a new row; a refused earlier one taken over
   * (same refund number); one left `requesting` by an interrupted request, resumed. Otherwise refused.
   */
  private async claim(co: PayChannelOrdersTable, merchantId: string, appId: string): Promise<PayRefundsTable> {
    const now = this.clock.now();
    const row: PayRefundsTable = {
      prepay_id: co.prepay_id,
      out_refund_no: `R${randomAlnum(27)}`,
      out_trade_no: co.out_trade_no,
      channel: co.channel,
      state: 'requesting',
      refund_cents: co.total_cents,
      refund_id: null,
      requested_by: merchantId,
      app_id: appId,
      last_error: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
    };
    try {
      await this.store.db.transaction().execute(async (trx) => {
        await this.store.insertRefund(trx, row);
        await this.jobs.enqueue(trx, this.followJob(co.prepay_id, now + this.opts.channelTimeoutMs + 1_000), 'rearm');
      });
      return row;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    const existing = await this.store.refund(co.prepay_id);
    if (!existing) throw new KitError('refund_in_progress', 'a refund of this order is being requested; retry');
    if (existing.state === 'success') throw new KitError('order_already_refunded');
    const interrupted = existing.state === 'requesting' && existing.updated_at < now - this.opts.channelTimeoutMs - 1_000;
    if (existing.state === 'failed' || interrupted) {
      const taken = await this.store.db.transaction().execute(async (trx) => {
        const mine = await this.store.takeOverRefund(
          trx,
          co.prepay_id,
          existing.state,
          existing.updated_at,
          { requested_by: merchantId, app_id: appId, last_error: null },
          now,
        );
        if (mine) await this.jobs.enqueue(trx, this.followJob(co.prepay_id, now + this.opts.channelTimeoutMs + 1_000), 'rearm');
        return mine;
      });
      if (taken) return { ...existing, state: 'requesting', updated_at: now, requested_by: merchantId, app_id: appId, last_error: null };
    }
    throw new KitError('refund_in_progress', 'a refund of this order was already requested; its completion arrives as a `refunded` callback');
  }

  private followJob(prepayId: string, at: number) {
    return { queue: 'refund.follow' as const, key: prepayId, ref: prepayId, at };
  }
}
