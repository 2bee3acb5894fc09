/**
 * What profit sharing asks of the channel, shared by the endpoints and the follow-up job: sending
 * a split or a finish (again, after an interruption: the same `out_order_no` is the same request
 * there), and reading a split's receivers' results into the request.
 */
import type { Logger } from 'pino';
import { KitError, type ChannelParams, type PaymentChannel } from '@kit/shared';
import type { Executor, PayChannelOrdersTable } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { Providers } from '../payments/providers/in-use';
import { refusalText, type ChannelName, type MerchantRef, type Outcome, type PaymentProvider, type ProfitSharing } from '../payments/providers/provider';
import type { PrepayService } from '../orders/prepay-service';
import type { PsStore } from './ps-store';
import type { PsRequestsTable, PsShare } from './ps-tables';

export interface PsChannelOptions {
  /** Waits between result queries (PROFIT_SHARING_QUERY_SCHEDULE). */
  querySchedule: readonly number[];
}

export class PsChannel {
  constructor(
    private readonly store: PsStore,
    /** The prepay orders (their store owns their table): which merchants an order belongs to. */
    private readonly orders: Pick<PrepayService, 'find'>,
    private readonly providers: Providers,
    private readonly jobs: Jobs,
    private readonly opts: PsChannelOptions,
    private readonly log: Logger,
  ) {}

  /**
   * Sends a `requesting` request. Accepted: `processing` (a split) or `finished` (a finish);
   * refused: `failed`, its share given back, the reason in `last_error`; unreachable (or "retry
   * later"): left `requesting` for the follow-up job, and `channel_unavailable` (or `channel_error`
   * for an answer that is not the protocol's) thrown.
   */
  async send(r: PsRequestsTable, co: PayChannelOrdersTable): Promise<'processing' | 'finished' | 'failed'> {
    const provider = this.providers.get(co.channel);
    const sharing = sharingOf(provider);
    let answer: Outcome<{ channelOrderId: string | null }>;
    try {
      if (r.kind === 'split') {
        const shares = JSON.parse(r.receivers_json) as PsShare[];
        const refusal = await this.ensureReceivers(co, shares);
        if (refusal) {
          await this.refused(r, refusal);
          return 'failed';
        }
        answer = await sharing.split(
          co,
          r.id,
          shares.map((s) => ({ type: s.type, account: s.account, amountCents: s.amountCents, description: s.description })),
          r.finish === 1,
        );
      } else {
        answer = await sharing.finish(co, r.id, r.description ?? '');
      }
    } catch (e) {
      // Unreachable, or an answer that is not the protocol's: the follow-up job sends it again.
      await this.store.noteRequestError(r.id, (e as Error).message);
      throw e;
    }
    if (!answer.ok) {
      const why = `${answer.refusal.code}: ${answer.refusal.message}`;
      if (provider.isRetryable(answer.refusal)) {
        // "Later" never comes for an order refunded at the channel (a refund made outside the kit
        // is not in its records, and the channel may keep saying "not ready"): the order query settles it.
        if (await this.refundedAtChannel(provider, co)) {
          await this.refused(r, `${why} (the order was refunded at the channel)`);
          return 'failed';
        }
        await this.store.noteRequestError(r.id, why);
        throw new KitError('channel_unavailable', `the channel asks to send this again later: ${why}`);
      }
      await this.refused(r, why);
      return 'failed';
    }
    return this.accepted(r, answer.channelOrderId);
  }

  /** Whether the channel's order query says the order was refunded; unknown (unreachable, refused) is no. */
  private async refundedAtChannel(provider: PaymentProvider, co: PayChannelOrdersTable): Promise<boolean> {
    try {
      const q = await provider.queryOrder(co);
      return q.ok && q.state === 'refunded';
    } catch {
      return false;
    }
  }

  /**
   * A `requesting` request that must not be sent any more (a refund of the order was requested
   * meanwhile) ends by what the channel knows of it: accepted there (an earlier call did reach
   * it), it goes on as accepted; unknown there, it is refused with `why`, its share given back.
   */
  async settleUnsent(r: PsRequestsTable, co: PayChannelOrdersTable, why: string): Promise<'processing' | 'finished' | 'failed'> {
    const q = await sharingOf(this.providers.get(co.channel)).query(co, r.id);
    if (q.ok) return this.accepted(r, q.channelOrderId);
    if (q.refusal.meaning !== 'not_found') throw new KitError('channel_error', `the channel did not answer the query: ${refusalText(q.refusal)}`);
    await this.refused(r, why);
    return 'failed';
  }

  /** The channel accepted a `requesting` request: a split is followed for its results, a finish is done. */
  private async accepted(r: PsRequestsTable, channelOrderId: string | null): Promise<'processing' | 'finished'> {
    const now = this.store.clock.now();
    const to = r.kind === 'split' ? 'processing' : 'finished';
    await this.store.db.transaction().execute(async (trx) => {
      if (!(await this.store.moveRequest(trx, r.id, ['requesting'], to, { channel_order_id: channelOrderId, last_error: null }, now))) return;
      // The channel released what was not shared: a finish, or a split that finishes.
      if (r.kind === 'finish' || r.finish === 1) await this.store.markUnfrozen(trx, r.prepay_id, now);
      if (to === 'processing') await this.jobs.enqueue(trx, this.followJob(r, now + (this.opts.querySchedule[0] ?? 1_000)), 'rearm');
      else await this.jobs.finish(trx, 'profit-sharing.follow', r.id, 'finished');
      await this.passOn(trx, r, now);
    });
    this.jobs.wake('profit-sharing.follow');
    return to;
  }

  /**
   * Requests of an order reach the channel in the order they were accepted (a later split with
   * `finish` must not overtake an earlier one): once `r` got there (or ended), the next one waiting
   * behind it is due at once, on whichever instance claims it.
   */
  private async passOn(trx: Executor, r: PsRequestsTable, now: number): Promise<void> {
    const next = await this.store.laterRequesting(r, trx);
    if (next) await this.jobs.enqueue(trx, this.followJob(next, now), 'rearm');
  }

  /**
   * Reads a split's results from the channel into the request: `finished` once every receiver's
   * result is final (closed shares are given back to the order), otherwise `processing`;
   * `missing` when the channel does not know it (it never arrived there).
   */
  async refresh(r: PsRequestsTable, co: PayChannelOrdersTable): Promise<'processing' | 'finished' | 'missing'> {
    const q = await sharingOf(this.providers.get(co.channel)).query(co, r.id);
    if (!q.ok) {
      if (q.refusal.meaning === 'not_found') return 'missing';
      throw new KitError('channel_error', `the channel did not answer the query: ${refusalText(q.refusal)}`);
    }
    const before = JSON.parse(r.receivers_json) as PsShare[];
    const after = before.map((s) => {
      const x = q.receivers.find((y) => y.type === s.type && y.account === s.account);
      const result = x?.result ?? 'pending';
      return {
        ...s,
        result,
        ...(x?.failReason ? { failReason: x.failReason } : {}),
        ...(x?.finishedAt !== undefined && result !== 'pending' ? { finishTime: new Date(x.finishedAt).toISOString() } : {}),
      } satisfies PsShare;
    });
    const done = q.finished && after.every((s) => s.result !== 'pending');
    const newlyClosed = after.filter((s, i) => s.result === 'closed' && before[i].result !== 'closed').reduce((a, s) => a + s.amountCents, 0);
    const now = this.store.clock.now();
    await this.store.db.transaction().execute(async (trx) => {
      const moved = await this.store.moveRequest(trx, r.id, ['processing'], done ? 'finished' : 'processing', { receivers_json: JSON.stringify(after) }, now);
      // What a closed share held is not shared: the order may share it again.
      if (moved) await this.store.release(trx, r.prepay_id, newlyClosed, now);
      if (moved && done) await this.jobs.finish(trx, 'profit-sharing.follow', r.id, 'finished');
    });
    if (newlyClosed > 0) this.log.info({ prepayId: r.prepay_id, outOrderNo: r.out_order_no }, 'a receiver’s share was closed by the channel');
    return done ? 'finished' : 'processing';
  }

  /** A refusal: the request fails, its share goes back, and a finish it carried is undone. */
  private async refused(r: PsRequestsTable, why: string): Promise<void> {
    const now = this.store.clock.now();
    const shares = (JSON.parse(r.receivers_json) as PsShare[]).map((s) => ({ ...s, result: 'closed' as const, failReason: why }));
    await this.store.db.transaction().execute(async (trx) => {
      if (!(await this.store.moveRequest(trx, r.id, ['requesting'], 'failed', { last_error: why, receivers_json: JSON.stringify(shares) }, now))) return;
      if (r.kind === 'split') await this.store.release(trx, r.prepay_id, r.amount_cents, now);
      if (r.kind === 'finish' || r.finish === 1) await this.store.setOrderState(trx, r.prepay_id, 'finished', 'open', now);
      await this.jobs.finish(trx, 'profit-sharing.follow', r.id, 'refused');
      await this.passOn(trx, r, now);
    });
    this.jobs.wake('profit-sharing.follow');
  }

  /**
   * Adds at the channel, once per merchant number, the receivers a split names. Returns why the
   * split cannot go ahead (a receiver removed meanwhile, or refused by the channel), or null.
   */
  private async ensureReceivers(co: PayChannelOrdersTable, shares: PsShare[]): Promise<string | null> {
    const sharing = sharingOf(this.providers.get(co.channel));
    const merchant = JSON.parse(co.merchant_json) as MerchantRef;
    const mch = sharing.accountOf(merchant);
    const known = new Set((await this.store.channelReceivers(mch)).map((x) => `${x.type}:${x.account}`));
    const missing = shares.filter((s) => !known.has(`${s.type}:${s.account}`));
    if (missing.length === 0) return null;
    const order = await this.orders.find(co.prepay_id);
    if (!order) throw new Error(`channel order ${co.out_trade_no} names an unknown prepay order`);
    const receivers = await this.store.activeReceivers([order.sub_merchant_id, order.merchant_id]);
    for (const s of missing) {
      const r = receivers.find((x) => x.type === s.type && x.account === s.account);
      if (!r) return `receiver ${s.type} ${s.account} was removed`;
      const refusal = await this.addAt(sharing, merchant, r);
      if (refusal) return refusal;
    }
    return null;
  }

  /** The provider that shares profits for receivers not tied to an order (4.8's receivers). */
  private sharing(): { provider: PaymentProvider; sharing: ProfitSharing } {
    const provider = this.providers.with('profitSharing')[0];
    if (!provider) throw new KitError('channel_unavailable', 'no payment channel of this configuration shares profits');
    return { provider, sharing: provider.profitSharing };
  }

  /** Whether the provider of a channel (a paid channel order's) shares profits. */
  sharesProfits(channel: string): boolean {
    return this.providers.with('profitSharing').some((p) => p.channel === channel);
  }

  /** The channel whose merchant numbers receivers are added for. */
  sharingChannel(): ChannelName {
    return this.sharing().provider.channel;
  }

  /**
   * Adds one receiver at the channel for a merchant number (idempotent there) and remembers it.
   * Returns the channel's reason when it refuses the receiver; throws when it cannot be reached.
   */
  addAtChannel(
    merchant: MerchantRef,
    r: { type: PsShare['type']; account: string; name: string | null; relation_type: string; custom_relation: string | null },
  ): Promise<string | null> {
    return this.addAt(this.sharing().sharing, merchant, r);
  }

  private async addAt(
    sharing: ProfitSharing,
    merchant: MerchantRef,
    r: { type: PsShare['type']; account: string; name: string | null; relation_type: string; custom_relation: string | null },
  ): Promise<string | null> {
    const answer = await sharing.addReceiver(merchant, {
      type: r.type,
      account: r.account,
      name: r.name,
      relationType: r.relation_type,
      customRelation: r.custom_relation,
    });
    if (!answer.ok) return `the channel refused the receiver ${r.type} ${r.account}: ${refusalText(answer.refusal)}`;
    await this.store.noteChannelReceiver(sharing.accountOf(merchant), r.type, r.account);
    return null;
  }

  /** Removes a receiver at the channel for a merchant number where it was added, and forgets it there. */
  async removeAtChannel(merchant: MerchantRef, r: { type: PsShare['type']; account: string }): Promise<void> {
    const { sharing } = this.sharing();
    const mch = sharing.accountOf(merchant);
    if (!(await this.store.channelReceivers(mch)).some((x) => x.type === r.type && x.account === r.account)) return;
    const answer = await sharing.removeReceiver(merchant, r);
    if (!answer.ok) throw new KitError('channel_error', `the channel did not remove the receiver ${r.type} ${r.account}: ${refusalText(answer.refusal)}`);
    await this.store.forgetChannelReceiver(mch, r.type, r.account);
  }

  /** The merchant as the sharing channel names it, from its (effective) parameters; undefined when they name no account there. */
  merchantFor(params: Partial<ChannelParams[PaymentChannel]>): MerchantRef | undefined {
    return this.sharing().sharing.merchantFor(params);
  }

  /** The account at the channel a merchant's receivers are kept for. */
  accountOf(merchant: MerchantRef): string {
    return this.sharing().sharing.accountOf(merchant);
  }

  followJob(r: Pick<PsRequestsTable, 'id' | 'prepay_id'>, at: number) {
    return { queue: 'profit-sharing.follow' as const, key: r.id, ref: r.prepay_id, at };
  }
}

/** A provider's profit sharing; `channel_unavailable` for one that does not share profits. */
function sharingOf(provider: PaymentProvider): ProfitSharing {
  if (!provider.profitSharing) throw new KitError('channel_unavailable', `payment channel ${provider.channel} does not share profits`);
  return provider.profitSharing;
}
