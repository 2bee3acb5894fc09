/**
 * Profit sharing (4.8), for merchants contracted for it and orders placed with it:
 * receivers per merchant, splits of a paid order (all together at most 30 % of it, counted in one
 * conditional update so that racing splits on any instance cannot exceed it), idempotent by the
 * merchant's `outOrderNo`, finishing an order's sharing, and what the merchant reads of it. Every
 * split and finish is written with its follow-up job, which carries it through the channel.
 */
import {
  KitError,
  PAY_VERSION,
  formatCents,
  maxShareCents,
  parseCents,
  type FinishSharingRequest,
  type PaySuccess,
  type ProfitSharingSummary,
  type RemoveReceiverRequest,
  type SharingAmountsResponse,
  type SplitAcceptedResponse,
  type SplitDetailResponse,
  type SplitRequest,
  type addReceiverRequestSchema,
} from '@kit/shared';
import type { z } from 'zod';
import { isUniqueViolation } from '../db/errors';
import type { PayChannelOrdersTable } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { MerchantService } from '../merchants/merchant-service';
import type { PaymentStore } from '../payments/payment-store';
import { randomAlnum } from '../security/ids';
import type { PsChannel } from './ps-channel';
import type { PsStore } from './ps-store';
import type { PsRequestsTable, PsShare } from './ps-tables';

type AddReceiver = z.output<typeof addReceiverRequestSchema>;
type OrderRow = NonNullable<Awaited<ReturnType<PaymentStore['orderWithMerchants']>>>;

export interface ProfitSharingOptions {
  /** Time limit of one channel call: a request `requesting` for longer was interrupted. */
  channelTimeoutMs: number;
}

export class ProfitSharingService {
  constructor(
    private readonly store: PsStore,
    private readonly payments: PaymentStore,
    private readonly merchants: MerchantService,
    private readonly channel: PsChannel,
    private readonly jobs: Jobs,
    private readonly opts: ProfitSharingOptions,
  ) {}

  // ---- receivers ------------------------------------------------------------------------------

  /** Adds a receiver for the orders of a merchant and its sub-merchants (idempotent). */
  async addReceiver(appId: string, body: AddReceiver): Promise<PaySuccess> {
    await this.sharingMerchant(appId, body.merchantId);
    const now = this.store.clock.now();
    const row = {
      merchant_id: body.merchantId,
      type: body.type,
      account: body.account,
      name: body.name ?? null,
      relation_type: body.relationType,
      custom_relation: body.customRelation ?? null,
      created_at: now,
      updated_at: now,
      removed_at: null,
    };
    // Told to the channel at once when the merchant has its own merchant number there, so that a
    // receiver the channel refuses is refused here; otherwise when a split first needs it.
    const merchant = await this.channelMerchant(body.merchantId);
    const refusal = merchant ? await this.channel.addAtChannel(merchant, row) : null;
    if (refusal) throw new KitError('channel_error', refusal);
    await this.store.upsertReceiver(row);
    return { version: PAY_VERSION, status: 'success' };
  }

  /**
   * Removes a receiver (idempotent): later splits cannot name it, and it is removed at the channel
   * under the merchant numbers of the merchant and its sub-merchants where it was added, so the
   * channel closes shares to it that are still pending. When the channel cannot be told, nothing
   * changes and the call may be repeated.
   */
  async removeReceiver(appId: string, body: RemoveReceiverRequest): Promise<PaySuccess> {
    await this.sharingMerchant(appId, body.merchantId);
    const ids = [body.merchantId, ...(await this.store.subMerchantIds(body.merchantId))];
    const numbers = new Set<string>();
    for (const id of ids) {
      const merchant = await this.channelMerchant(id);
      const account = merchant && this.channel.accountOf(merchant);
      if (merchant && account && !numbers.has(account)) {
        numbers.add(account);
        await this.channel.removeAtChannel(merchant, body);
      }
    }
    await this.store.removeReceiver(body.merchantId, body.type, body.account, this.store.clock.now());
    return { version: PAY_VERSION, status: 'success' };
  }

  // ---- splits and finish ----------------------------------------------------------------------

  /** One split of a paid order to added receivers; accepted at once, its results come later. */
  async split(appId: string, body: SplitRequest): Promise<SplitAcceptedResponse> {
    const shares: PsShare[] = body.receivers.map((r) => ({
      type: r.type,
      account: r.account,
      amountCents: parseCents(r.amount),
      description: r.description,
      result: 'pending',
    }));
    const amount = shares.reduce((a, s) => a + s.amountCents, 0);
    const order = await this.sharingOrder(appId, body.prepayId);
    const again = await this.store.requestByNumber(body.prepayId, body.outOrderNo);
    if (again) {
      // One that ended because a refund overtook it says so, not that the channel failed.
      if (again.state === 'failed') await this.notRefunding(order.prepay_id);
      return this.repeated(again, 'split', JSON.stringify(shares), body.finish === true);
    }
    const co = await this.sharedPayment(order);
    await this.notRefunding(order.prepay_id);
    const sharing = await this.store.order(order.prepay_id);
    if (sharing?.state === 'finished') throw new KitError('profit_sharing_finished');
    const known = new Set((await this.store.activeReceivers([order.sub_merchant_id, order.merchant_id])).map((r) => `${r.type}:${r.account}`));
    const unknown = shares.filter((s) => !known.has(`${s.type}:${s.account}`));
    if (unknown.length) {
      throw new KitError(
        'profit_sharing_receiver_unknown',
        `not added for this merchant (POST /submerchant-pay/profitSharing/receivers first): ${unknown.map((s) => `${s.type} ${s.account}`).join(', ')}`,
      );
    }
    const row = this.newRequest(appId, order, body.outOrderNo, 'split', {
      receivers_json: JSON.stringify(shares),
      amount_cents: amount,
      finish: body.finish ? 1 : 0,
    });
    const created = await this.create(row, order, amount, body.finish === true);
    if (created !== 'created') return created;
    return this.sendNow(row, co);
  }

  /** Ends the order's sharing: what was not shared is released to the merchant; no split may follow. */
  async finish(appId: string, body: FinishSharingRequest): Promise<SplitAcceptedResponse> {
    const order = await this.sharingOrder(appId, body.prepayId);
    const again = await this.store.requestByNumber(body.prepayId, body.outOrderNo);
    if (again) {
      // One that ended because a refund overtook it says so, not that the channel failed.
      if (again.state === 'failed') await this.notRefunding(order.prepay_id);
      return this.repeated(again, 'finish', '[]', false, body.description);
    }
    const co = await this.sharedPayment(order);
    await this.notRefunding(order.prepay_id);
    const row = this.newRequest(appId, order, body.outOrderNo, 'finish', { receivers_json: '[]', amount_cents: 0, finish: 0, description: body.description });
    const created = await this.create(row, order, 0, true);
    if (created !== 'created') return created;
    return this.sendNow(row, co);
  }

  /** A split's (or finish's) state and each receiver's result. */
  async detail(appId: string, prepayId: string, outOrderNo: string): Promise<SplitDetailResponse> {
    await this.sharingOrder(appId, prepayId);
    const r = await this.store.requestByNumber(prepayId, outOrderNo);
    if (!r) throw new KitError('not_found', `no profit-sharing request "${outOrderNo}" for order "${prepayId}"`);
    return {
      version: PAY_VERSION,
      status: 'success',
      data: {
        outOrderNo: r.out_order_no,
        prepayId: r.prepay_id,
        state: r.state === 'requesting' || r.state === 'processing' ? 'processing' : 'finished',
        receivers: (JSON.parse(r.receivers_json) as PsShare[]).map((s) => ({
          type: s.type,
          account: s.account,
          amount: formatCents(s.amountCents),
          description: s.description,
          result: s.result,
          ...(s.failReason ? { failReason: s.failReason } : {}),
          ...(s.finishTime ? { finishTime: s.finishTime } : {}),
        })),
      },
    };
  }

  /** What the order may share, has shared, and whether the rest was released. */
  async amounts(appId: string, prepayId: string): Promise<SharingAmountsResponse> {
    const order = await this.sharingOrder(appId, prepayId);
    await this.sharedPayment(order, { refundedToo: true });
    const sharing = await this.store.order(prepayId);
    return {
      version: PAY_VERSION,
      status: 'success',
      data: {
        totalAmount: formatCents(order.total_cents),
        sharedAmount: formatCents(sharing?.shared_cents ?? 0),
        maxShareAmount: formatCents(maxShareCents(order.total_cents)),
        unfrozen: sharing?.unfrozen_at !== null && sharing?.unfrozen_at !== undefined,
      },
    };
  }

  /**
   * Where each paid order placed with profit sharing stands, for screens (the POS orders list);
   * orders without it are left out. Three queries, whatever the number of orders.
   */
  /** An order's splits and finishes with each receiver's result, oldest first (the console's timeline). */
  async requestsOf(prepayId: string) {
    return (await this.store.requestsOf([prepayId])).map((r) => ({ ...r, receivers: JSON.parse(r.receivers_json) as PsShare[] }));
  }

  async summaries(orders: { prepayId: string; totalCents: number }[]): Promise<Map<string, ProfitSharingSummary>> {
    const shared = await this.payments.paidWithProfitSharing(orders.map((o) => o.prepayId));
    const out = new Map<string, ProfitSharingSummary>();
    if (shared.length === 0) return out;
    const [sharing, requests] = await Promise.all([this.store.ordersOf(shared), this.store.requestsOf(shared)]);
    const rows = new Map(sharing.map((r) => [r.prepay_id, r]));
    const busy = new Set(requests.filter((r) => r.state === 'requesting' || r.state === 'processing').map((r) => r.prepay_id));
    const totals = new Map(orders.map((o) => [o.prepayId, o.totalCents]));
    for (const id of shared) {
      const row = rows.get(id);
      out.set(id, {
        state: busy.has(id) ? 'processing' : (row?.state ?? 'open'),
        sharedAmount: formatCents(row?.shared_cents ?? 0),
        maxShareAmount: formatCents(row?.max_share_cents ?? maxShareCents(totals.get(id) ?? 0)),
      });
    }
    return out;
  }

  // ---- the rules ---------------------------------------------------------------------------------

  /**
   * Writes the request with its reservation of the order's share and its follow-up job, in one
   * transaction. The same `outOrderNo` racing in from two requests: one is written, the other gets
   * its answer.
   */
  private async create(row: PsRequestsTable, order: OrderRow, amount: number, finish: boolean): Promise<'created' | SplitAcceptedResponse> {
    const now = row.created_at;
    try {
      await this.store.db.transaction().execute(async (trx) => {
        await this.store.ensureOrder(trx, order.prepay_id, order.total_cents, maxShareCents(order.total_cents), now);
        if (!(await this.store.reserve(trx, order.prepay_id, amount, finish, now))) {
          const sharing = await this.store.order(order.prepay_id, trx);
          if (sharing?.state === 'finished') throw new KitError('profit_sharing_finished');
          const left = (sharing?.max_share_cents ?? 0) - (sharing?.shared_cents ?? 0);
          throw new KitError(
            'profit_sharing_limit_exceeded',
            `this split takes ${formatCents(amount)}; the order (${formatCents(order.total_cents)}) may share ${formatCents(Math.max(0, left))} more (at most 30 % in all)`,
          );
        }
        // Accepted after every earlier request of the order (the reservation above holds its row):
        // that is the order in which they reach the channel.
        row.created_at = Math.max(row.created_at, (await this.store.lastRequestAt(trx, order.prepay_id)) + 1);
        row.updated_at = row.created_at;
        await this.store.insertRequest(trx, row);
        await this.jobs.enqueue(trx, this.channel.followJob(row, row.created_at + this.opts.channelTimeoutMs + 1_000), 'rearm');
      });
      return 'created';
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const raced = await this.store.requestByNumber(row.prepay_id, row.out_order_no);
      if (!raced) throw e;
      return this.repeated(raced, row.kind, row.receivers_json, row.finish === 1, row.description ?? undefined);
    }
  }

  /**
   * Sends a new request. Once written it is accepted: when the channel cannot be reached (or its
   * answer is not the protocol's), the follow-up job carries it on and the results say how it went.
   * Only a refusal by the channel is answered as a failure.
   */
  private async sendNow(row: PsRequestsTable, co: PayChannelOrdersTable): Promise<SplitAcceptedResponse> {
    this.jobs.wake('profit-sharing.follow');
    let state: 'processing' | 'finished' | 'failed' = 'processing';
    try {
      if (await this.store.earlierRequesting(row)) {
        // An earlier request of the order has not reached the channel yet: this one goes after it,
        // through the follow-up job (dated so that it is sent as soon as its turn comes).
        await this.store.takeOverRequest(row.id, row.updated_at, 0);
        // The earlier one may have got there meanwhile, before this one was marked to go at once.
        if (!(await this.store.earlierRequesting(row))) await this.jobs.enqueue(this.store.db, this.channel.followJob(row, this.store.clock.now()), 'rearm');
        return { version: PAY_VERSION, status: 'success', data: { outOrderNo: row.out_order_no, state: 'processing' } };
      }
      state = await this.channel.send(row, co);
    } catch (e) {
      if (!(e instanceof KitError && (e.error === 'channel_unavailable' || e.error === 'channel_error'))) throw e;
    }
    if (state === 'failed') {
      const refused = await this.store.request(row.id);
      throw new KitError('channel_error', `the channel refused this ${row.kind}: ${refused?.last_error ?? 'no reason given'}`);
    }
    return { version: PAY_VERSION, status: 'success', data: { outOrderNo: row.out_order_no, state: state === 'finished' ? 'finished' : 'processing' } };
  }

  /**
   * No split or finish while a refund of the order is requested or done (4.6): the channel refuses
   * to share a refunded order, and a refund on its way may get there first. A refund the channel
   * refused does not count.
   */
  private async notRefunding(prepayId: string): Promise<void> {
    const refund = await this.payments.refund(prepayId);
    if (!refund || refund.state === 'failed') return;
    if (refund.state === 'success') throw new KitError('order_already_refunded', `prepay order "${prepayId}" was refunded; it can no longer be shared`);
    throw new KitError('profit_sharing_refund_requested', `a refund of prepay order "${prepayId}" was requested; it can no longer be shared`);
  }

  /** The same `outOrderNo` again: the same request answers as it did; a different one is refused. */
  private repeated(r: PsRequestsTable, kind: PsRequestsTable['kind'], sharesJson: string, finish: boolean, description?: string): SplitAcceptedResponse {
    const pending = (JSON.parse(r.receivers_json) as PsShare[]).map((s) => ({ ...s, result: 'pending', failReason: undefined, finishTime: undefined }));
    const asSent = JSON.stringify(pending.map(({ failReason: _f, finishTime: _t, ...s }) => s));
    const same = r.kind === kind && (r.finish === 1) === finish && asSent === sharesJson && (kind === 'split' || r.description === description);
    if (!same) throw new KitError('profit_sharing_order_conflict', `outOrderNo "${r.out_order_no}" was already used for a different ${r.kind} of this order`);
    if (r.state === 'failed') throw new KitError('channel_error', `the channel refused this ${r.kind}: ${r.last_error ?? 'no reason given'}`);
    return { version: PAY_VERSION, status: 'success', data: { outOrderNo: r.out_order_no, state: r.state === 'finished' ? 'finished' : 'processing' } };
  }

  /**
   * The order, when the signer may share it: it exists (else 404), the signer owns its
   * sub-merchant or the parent (else 401), and one of them is contracted for profit sharing.
   */
  private async sharingOrder(appId: string, prepayId: string): Promise<OrderRow> {
    const order = await this.payments.orderWithMerchants(prepayId);
    if (!order) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    if (order.sub_app_id !== appId && order.parent_app_id !== appId)
      throw new KitError('not_owner', `app "${appId}" owns neither the sub-merchant nor the parent of order "${prepayId}"`);
    if (!order.profit_sharing_contracted && !order.parent_profit_sharing_contracted) {
      throw new KitError('profit_sharing_not_enabled', 'the merchant is not contracted for profit sharing (npm run kit -- merchant contract <id>)');
    }
    return order;
  }

  /** The order's payment, which must have been placed with profit sharing. */
  private async sharedPayment(order: OrderRow, opts = { refundedToo: false }): Promise<PayChannelOrdersTable> {
    if (order.status === 'refunded' && !opts.refundedToo)
      throw new KitError('order_already_refunded', `prepay order "${order.prepay_id}" was refunded; it can no longer be shared`);
    if (order.status !== 'finish' && order.status !== 'refunded')
      throw new KitError('order_not_paid', `prepay order "${order.prepay_id}" is ${order.status}; only a paid order can be shared`);
    const co = await this.payments.paidChannelOrder(order.prepay_id);
    if (!co) throw new KitError('order_not_paid', `prepay order "${order.prepay_id}" has no recorded payment`);
    // A wallet that does not share profits (design 6.3: sharing stays the social channel's).
    if (!this.channel.sharesProfits(co.channel)) {
      throw new KitError(
        'profit_sharing_not_enabled',
        `prepay order "${order.prepay_id}" was paid through payment channel ${co.channel}, which does not share profits; only orders paid through a channel that does can be shared`,
      );
    }
    if (!co.profit_sharing) {
      throw new KitError(
        'profit_sharing_not_enabled',
        'the order was not placed with profit sharing (4.5 enableProfitSharing, or profitSharing: true in the merchant’s SocialNative parameters)',
      );
    }
    return co;
  }

  /** A merchant the signer owns (or owns the parent of), contracted (or with a contracted parent). */
  private async sharingMerchant(appId: string, merchantId: string) {
    const m = await this.merchants.findWithParent(merchantId);
    if (!m) throw new KitError('unknown_merchant', `merchant "${merchantId}" does not exist`);
    if (m.app_id !== appId && m.parent_app_id !== appId) throw new KitError('not_owner', `app "${appId}" does not own merchant "${merchantId}"`);
    if (!m.profit_sharing_contracted && !m.parent_profit_sharing_contracted) {
      throw new KitError('profit_sharing_not_enabled', 'the merchant is not contracted for profit sharing (npm run kit -- merchant contract <id>)');
    }
    return m;
  }

  /** The merchant as the channel knows it, when it has a merchant number there (its own or its parent's). */
  private async channelMerchant(merchantId: string) {
    return this.channel.merchantFor(await this.merchants.effectivePaymentParams(merchantId, this.channel.sharingChannel()));
  }

  private newRequest(
    appId: string,
    order: OrderRow,
    outOrderNo: string,
    kind: PsRequestsTable['kind'],
    rest: Pick<PsRequestsTable, 'receivers_json' | 'amount_cents' | 'finish'> & { description?: string },
  ): PsRequestsTable {
    const now = this.store.clock.now();
    return {
      id: `PS${randomAlnum(26)}`,
      prepay_id: order.prepay_id,
      out_order_no: outOrderNo,
      kind,
      finish: rest.finish,
      receivers_json: rest.receivers_json,
      description: rest.description ?? null,
      amount_cents: rest.amount_cents,
      state: 'requesting',
      channel_order_id: null,
      app_id: appId,
      last_error: null,
      created_at: now,
      updated_at: now,
    };
  }
}
