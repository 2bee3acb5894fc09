/**
 * What the console router does for a logged-in merchant (design 5.3; who that is:
 * `console-identity.ts`; an order's story: `order-story.ts`), by the front-end backends'
 * rule (`frontends/README.md`). Like the POS router it behaves as a merchant backend: callbacks, resends, recoveries and refunds go to this service's
 * public API in-process (`routes/in-process.ts`), as the app that owns the merchant; only reads the public API has no
 * call for (the day's orders, an order's channel orders, refund and splits, a merchant's own
 * reconciliation differences: the public API answers for the whole app) go to the services.
 * A parent merchant sees its sub-merchants; anything else is "not found".
 */
import { KitError, type CallbackItem } from '@kit/shared';
import type {
  ConsoleOrderDetail,
  ConsoleOrderLine,
  ConsoleReceived,
  ConsoleReconcileRun,
  ConsoleReconciliationDay,
  ConsoleReconciliationReport,
} from '@kit/shared/api/console';
import type { consoleOrdersQuerySchema } from '@kit/shared/api/console-schemas';
import type { z } from 'zod';
import type { PrepayOrdersTable } from '../../db/schema';
import type { Services } from '../../services';
import type { InProcessApi } from '../../routes/in-process';
import { refundOrder } from '../../routes/payments';
import { listCallbacks, recoverCallbacks, resendCallback } from '../../routes/callbacks';
import { upstream } from '../pos/pos-backend';
import { orderLine, orderStory } from './order-story';
import type { ConsoleUser } from './console-identity';

const DAY_MS = 86_400_000;
/** How many reconciled days (of each channel) the list shows. */
const RECON_DAYS = 60;

export class ConsoleBackend {
  constructor(
    private readonly services: Services,
    private readonly api: InProcessApi,
  ) {}

  /** One day's orders (or the one order searched for), newest first. */
  async orders(user: ConsoleUser, q: z.output<typeof consoleOrdersQuerySchema>, now = this.services.clock.now()): Promise<ConsoleOrderLine[]> {
    if (q.subMerchantId) this.requireVisible(user, q.subMerchantId);
    if (q.prepayId) {
      const row = await this.services.prepay.find(q.prepayId);
      if (!row || !this.sees(user, row)) return [];
      return [orderLine(row, now, (await this.services.payments.paidChannels([row.prepay_id])).get(row.prepay_id))];
    }
    const offset = (q.tz ?? 0) * 60_000;
    const day = q.day ?? new Date(now + offset).toISOString().slice(0, 10);
    const since = Date.parse(`${day}T00:00:00Z`) - offset;
    // Orders belong to sub-merchants: a parent's are its sub-merchants' (`merchants` after itself).
    const shops = q.subMerchantId ? [q.subMerchantId] : user.parentMerchantId ? [user.merchantId] : user.merchants.slice(1).map((m) => m.id);
    const rows = await this.services.prepay.listForSubMerchants(shops, since, since + DAY_MS, q.status);
    const channels = await this.services.payments.paidChannels(rows.filter((r) => r.status === 'finish' || r.status === 'refunded').map((r) => r.prepay_id));
    return rows.map((r) => orderLine(r, now, channels.get(r.prepay_id)));
  }

  /** The order's story: every state change with its time and cause, callbacks with their attempts, refund, splits. */
  async order(user: ConsoleUser, prepayId: string, now = this.services.clock.now()): Promise<ConsoleOrderDetail> {
    const row = await this.visibleOrder(user, prepayId);
    const [{ channelOrders, refund, duplicates }, answer, requests, sub] = await Promise.all([
      this.services.payments.state(prepayId),
      upstream('reading the callbacks', () => this.api.call(listCallbacks, user, { query: { prepayId } })),
      this.services.profitSharing.requestsOf(prepayId),
      this.services.merchants.find(row.sub_merchant_id),
    ]);
    return orderStory({ row, channelOrders, refund, duplicates, callbacks: [...answer.data.items].reverse(), requests, merchantName: sub?.display_name, now });
  }

  /** 4.6 with the console user's own login token (a parent's works for its sub-merchants' orders). */
  async refund(user: ConsoleUser, prepayId: string): Promise<ConsoleOrderDetail> {
    await this.visibleOrder(user, prepayId);
    await upstream('refunding', () => this.api.call(refundOrder, user, { query: { loginToken: user.loginToken }, body: { id: prepayId } }));
    return this.order(user, prepayId);
  }

  /** The login's callbacks of one state (or all), or of one order, newest first, a page of 100. */
  async callbacks(user: ConsoleUser, state?: CallbackItem['state'], prepayId?: string): Promise<CallbackItem[]> {
    if (prepayId) await this.visibleOrder(user, prepayId);
    const query = { ...(prepayId ? { prepayId } : { merchantId: user.merchantId }), limit: '100', ...(state ? { state } : {}) };
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
    const list = this.services.dev?.parts.receiver?.list(user.merchants.map((m) => m.id)) ?? [];
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
      totals: r.totals,
      differences: [...r.differences].sort((a, b) => Number(b.resolution === 'open') - Number(a.resolution === 'open')),
    }));
  }

  /**
   * Reconciles a day now, as the daily job would (`reconciliation/reconcile-now.ts`): the public API
   * has no call for it (a day's bill covers every merchant of the channel account, not one app's).
   * Any login may ask: the run is the one the job makes, and a day run again changes nothing.
   */
  async reconcileNow(user: ConsoleUser, date: string): Promise<ConsoleReconcileRun[]> {
    return this.services.reconcileNow.run(date, user.merchantId);
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
