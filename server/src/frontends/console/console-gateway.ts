/**
 * What the console router does for a logged-in merchant (design 5.3), by the front-end gateways'
 * rule (`frontends/README.md`). Like the POS router it behaves as a merchant backend: callbacks, resends, recoveries and refunds go to this service's
 * public API in-process (`routes/in-process.ts`), as the app that owns the merchant; only reads the public API has no
 * call for (the day's orders, an order's channel orders, refund and splits, a merchant's own
 * reconciliation differences: the public API answers for the whole app) go to the services.
 * A parent merchant sees its sub-merchants; anything else is "not found".
 */
import { KitError, formatCents, type CallbackItem } from '@kit/shared';
import type {
  ConsoleOrderDetail,
  ConsoleOrderLine,
  ConsoleReceived,
  ConsoleReconciliationDay,
  ConsoleReconciliationReport,
  ConsoleSession,
  ConsoleSplit,
  ConsoleTimelineEvent,
} from '@kit/shared/api/console';
import type { consoleOrdersQuerySchema } from '@kit/shared/api/console-schemas';
import type { z } from 'zod';
import type { PrepayOrdersTable } from '../../db/schema';
import type { Services } from '../../services';
import type { InProcessApi } from '../../routes/in-process';
import { refundOrder } from '../../routes/payments';
import { listCallbacks, recoverCallbacks, resendCallback } from '../../routes/callbacks';
import { upstream } from '../pos/pos-gateway';
import { shownStatus } from '../../orders/order-expiry';

/** The merchant behind a request: who logged in, its owning app, its login token and what it sees. */
export interface ConsoleUser extends ConsoleSession {
  appId: string;
  loginToken: string;
}

const DAY_MS = 86_400_000;
/** How many reconciled days (of each channel) the list shows. */
const RECON_DAYS = 60;
const KIND_ORDER: ConsoleTimelineEvent['kind'][] = [
  'created',
  'channelOrder',
  'channelOrderClosed',
  'paid',
  'expired',
  'callback',
  'sharingRequested',
  'sharingResult',
  'refundRequested',
  'refundCompleted',
  'refundFailed',
];
const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? undefined : new Date(Number(ms)).toISOString());

export class ConsoleGateway {
  constructor(
    private readonly services: Services,
    private readonly api: InProcessApi,
  ) {}

  /** 4.16, through the same login service as the POS (and its protections); both levels may log in. */
  async login(userId: string, pw: string, client: { address?: string }): Promise<string> {
    return (await this.services.merchants.login(userId, pw, client)).loginToken;
  }

  async logout(token: string | undefined): Promise<void> {
    if (token) await this.services.merchants.revokeLogin(token);
  }

  /** Resolves the cookie's token; anything but a valid login is a 401. */
  async identify(token: string | undefined): Promise<ConsoleUser> {
    const who = await this.services.merchants.identify(token);
    const row = await this.services.merchants.find(who.merchantId);
    if (!row) throw new KitError('login_invalid');
    const children = who.kind === 'subMerchant' ? [] : await this.services.merchants.children(who.merchantId);
    return {
      merchantId: who.merchantId,
      displayName: who.displayName,
      parentMerchantId: who.parentMerchantId,
      merchants: [{ id: who.merchantId, displayName: who.displayName }, ...children.map((c) => ({ id: c.id, displayName: c.display_name }))],
      receiver: !!this.services.sandbox,
      appId: row.app_id,
      loginToken: token!,
    };
  }

  session(user: ConsoleUser): ConsoleSession {
    const { appId: _a, loginToken: _l, ...session } = user;
    return session;
  }

  /** One day's orders (or the one order searched for), newest first. */
  async orders(user: ConsoleUser, q: z.output<typeof consoleOrdersQuerySchema>, now = Date.now()): Promise<ConsoleOrderLine[]> {
    if (q.subMerchantId) this.requireVisible(user, q.subMerchantId);
    if (q.prepayId) {
      const row = await this.services.prepay.find(q.prepayId);
      return row && this.sees(user, row) ? [line(row, now)] : [];
    }
    const offset = (q.tz ?? 0) * 60_000;
    const day = q.day ?? new Date(now + offset).toISOString().slice(0, 10);
    const since = Date.parse(`${day}T00:00:00Z`) - offset;
    // Orders belong to sub-merchants: a parent's are its sub-merchants' (`merchants` after itself).
    const shops = q.subMerchantId ? [q.subMerchantId] : user.parentMerchantId ? [user.merchantId] : user.merchants.slice(1).map((m) => m.id);
    const rows = await this.services.prepay.listForSubMerchants(shops, since, since + DAY_MS, q.status);
    return rows.map((r) => line(r, now));
  }

  /** The order's story: every state change with its time and cause, callbacks with their attempts, refund, splits. */
  async order(user: ConsoleUser, prepayId: string, now = Date.now()): Promise<ConsoleOrderDetail> {
    const row = await this.visibleOrder(user, prepayId);
    const [{ channelOrders, refund }, answer, requests, sub] = await Promise.all([
      this.services.payments.state(prepayId),
      upstream('reading the callbacks', () => this.api.call(listCallbacks, user, { query: { prepayId } })),
      this.services.profitSharing.requestsOf(prepayId),
      this.services.merchants.find(row.sub_merchant_id),
    ]);
    const callbacks = [...answer.data.items].reverse();
    const timeline: ConsoleTimelineEvent[] = [
      { at: iso(row.create_time)!, kind: 'created', cause: 'created', detail: { amount: formatCents(row.total_cents) } },
    ];
    for (const co of channelOrders) {
      timeline.push({ at: iso(co.created_at)!, kind: 'channelOrder', cause: co.trade_type, detail: { channel: co.channel, outTradeNo: co.out_trade_no } });
      if (co.state === 'paid' && co.paid_at) {
        timeline.push({
          at: iso(co.paid_at)!,
          kind: 'paid',
          // How the kit learned of it; rows paid before it was kept say `unrecorded`.
          cause: co.paid_via ?? 'unrecorded',
          detail: { transactionId: co.transaction_id ?? '', outTradeNo: co.out_trade_no },
        });
      } else if (co.state === 'closed' || co.state === 'failed') {
        timeline.push({ at: iso(co.updated_at)!, kind: 'channelOrderClosed', cause: co.state, detail: { outTradeNo: co.out_trade_no } });
      }
    }
    if (row.status === 'cancel') timeline.push({ at: iso(Math.min(row.updated_at, now))!, kind: 'expired', cause: 'notPaidInTime' });
    if (refund) {
      timeline.push({
        at: iso(refund.created_at)!,
        kind: 'refundRequested',
        cause: 'refundCall',
        detail: { amount: formatCents(refund.refund_cents), outRefundNo: refund.out_refund_no },
      });
      if (refund.state === 'success' && refund.completed_at)
        timeline.push({ at: iso(refund.completed_at)!, kind: 'refundCompleted', cause: 'channel', detail: { refundId: refund.refund_id ?? '' } });
      if (refund.state === 'failed')
        timeline.push({ at: iso(refund.updated_at)!, kind: 'refundFailed', cause: 'channel', detail: { error: refund.last_error ?? '' } });
    }
    for (const c of callbacks) timeline.push({ at: c.createdAt, kind: 'callback', cause: c.event, detail: { id: c.id, state: c.state } });
    const splits: ConsoleSplit[] = requests.map((r) => ({
      outOrderNo: r.out_order_no,
      kind: r.kind,
      state: r.state,
      amount: formatCents(r.amount_cents),
      createdAt: iso(r.created_at)!,
      receivers: r.receivers.map((s) => ({
        type: s.type,
        account: s.account,
        amount: formatCents(s.amountCents),
        result: s.result,
        ...(s.failReason ? { failReason: s.failReason } : {}),
        ...(s.finishTime ? { finishTime: s.finishTime } : {}),
      })),
    }));
    for (const s of splits) {
      timeline.push({ at: s.createdAt, kind: 'sharingRequested', cause: s.kind, detail: { outOrderNo: s.outOrderNo, amount: s.amount } });
      for (const r of s.receivers) {
        if (r.finishTime && r.result !== 'pending')
          timeline.push({ at: r.finishTime, kind: 'sharingResult', cause: r.result, detail: { account: r.account, amount: r.amount } });
      }
    }
    // The channel tells times to the second: within one second, the order of causes decides.
    const second = (e: ConsoleTimelineEvent) => Math.floor(Date.parse(e.at) / 1000);
    const rank = (e: ConsoleTimelineEvent) =>
      KIND_ORDER.indexOf(e.kind === 'callback' && e.cause === 'refunded' ? 'refundCompleted' : e.kind) * 2 + (e.kind === 'callback' ? 1 : 0);
    timeline.sort((a, b) => second(a) - second(b) || rank(a) - rank(b) || Date.parse(a.at) - Date.parse(b.at));
    const refundBusy = refund && (refund.state === 'requesting' || refund.state === 'accepted');
    return {
      ...line(row, now),
      merchantName: sub?.display_name ?? row.sub_merchant_id,
      timeline,
      callbacks,
      splits,
      refundable: row.status === 'finish' && !refundBusy,
      refund: refund
        ? {
            state: refund.state,
            amount: formatCents(refund.refund_cents),
            requestedAt: iso(refund.created_at)!,
            ...(refund.completed_at ? { completedAt: iso(refund.completed_at)! } : {}),
            ...(refund.last_error ? { error: refund.last_error } : {}),
          }
        : null,
    };
  }

  /** 4.6 with the console user's own login token (a parent's works for its sub-merchants' orders). */
  async refund(user: ConsoleUser, prepayId: string): Promise<ConsoleOrderDetail> {
    await this.visibleOrder(user, prepayId);
    await upstream('refunding', () => this.api.call(refundOrder, user, { query: { loginToken: user.loginToken }, body: { id: prepayId } }));
    return this.order(user, prepayId);
  }

  /** The login's callbacks of one state (or all), newest first, a page of 100. */
  async callbacks(user: ConsoleUser, state?: CallbackItem['state']): Promise<CallbackItem[]> {
    const query = { merchantId: user.merchantId, limit: '100', ...(state ? { state } : {}) };
    const answer = await upstream('reading the callbacks', () => this.api.call(listCallbacks, user, { query }));
    return answer.data.items;
  }

  async resend(user: ConsoleUser, id: string): Promise<boolean> {
    return (await upstream('resending the callback', () => this.api.call(resendCallback, user, { body: { id } }))).data.resent;
  }

  async recover(user: ConsoleUser, since: string, until: string): Promise<number> {
    const body = { merchantId: user.merchantId, since, until };
    return (await upstream('recovering callbacks', () => this.api.call(recoverCallbacks, user, { body }))).data.resent;
  }

  /** What the development receiver got for this login's merchants (empty when it does not run here). */
  received(user: ConsoleUser): ConsoleReceived[] {
    const list = this.services.sandbox?.receiver.list(user.merchants.map((m) => m.id)) ?? [];
    return list.map(({ at, url, body, signature, prepayId, status }) => ({ at, url, body, signature, prepayId, status }));
  }

  /** The reconciled days (newest first), each with the login's merchants' differences counted. */
  async reconciliations(user: ConsoleUser): Promise<ConsoleReconciliationDay[]> {
    return this.services.reconciliation.listForMerchants(this.seen(user), RECON_DAYS);
  }

  /** A reconciled day's differences of the login's merchants, open ones first; `not_found` until the day is reconciled. */
  async reconciliation(user: ConsoleUser, date: string): Promise<ConsoleReconciliationReport[]> {
    const reports = await this.services.reconciliation.forMerchants(this.seen(user), date);
    return reports.map((r) => ({
      date: r.date,
      channel: r.channel,
      differences: [...r.differences].sort((a, b) => Number(b.resolution === 'open') - Number(a.resolution === 'open')),
    }));
  }

  /** A parent sees its sub-merchants' (and its own); a sub-merchant only its own. */
  private seen(user: ConsoleUser): string[] {
    return user.merchants.map((m) => m.id);
  }

  private async visibleOrder(user: ConsoleUser, prepayId: string): Promise<PrepayOrdersTable> {
    const row = await this.services.prepay.find(prepayId);
    if (!row || !this.sees(user, row)) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    return row;
  }

  private sees(user: ConsoleUser, row: PrepayOrdersTable): boolean {
    return row.sub_merchant_id === user.merchantId || row.merchant_id === user.merchantId;
  }

  private requireVisible(user: ConsoleUser, merchantId: string): void {
    if (!user.merchants.some((m) => m.id === merchantId)) throw new KitError('not_found', `merchant "${merchantId}" does not exist`);
  }
}

function line(r: PrepayOrdersTable, now: number): ConsoleOrderLine {
  const status = shownStatus(r, now);
  const out: ConsoleOrderLine = {
    prepayId: r.prepay_id,
    subMerchantId: r.sub_merchant_id,
    amount: formatCents(r.total_cents),
    status,
    createTime: iso(r.create_time)!,
  };
  if (r.payment_time !== null && r.payment_time !== undefined) out.paymentTime = iso(r.payment_time)!;
  return out;
}
