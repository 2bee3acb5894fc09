/** Today's orders of the sub-merchant, and refunds (asked for confirmation first). */
import { createStore } from 'zustand/vanilla';
import type { PosOrderSummary } from '@kit/shared/api/pos';
import { formatMoneyText } from '@kit/shared/money-format';
import { formatCents, parseCents } from '@kit/shared/money';
import type { PosApi } from '../api/client';
import { describeFailure } from '../i18n/failure';
import { msg, type Msg } from '../i18n/i18n';

export interface OrdersState {
  orders: PosOrderSummary[];
  loading: boolean;
  loaded: boolean;
  error: Msg | null;
  /** The order the confirmation dialog is about. */
  confirming: string | null;
  /** Orders with a refund under way. */
  refunding: string[];
  notice: Msg | null;
  load(): Promise<void>;
  askRefund(prepayId: string): void;
  cancelRefund(): void;
  confirmRefund(): Promise<void>;
  /** Stops waiting for refunds to complete (leaving the screen). */
  stop(): void;
}

export interface OrdersOptions {
  /** How often, and how long, to re-read an order until its refund has completed. */
  refundPollMs?: number;
  refundPollLimitMs?: number;
  now?: () => number;
}

/** What today's paid orders took, refunded ones left out: a decimal for `t.money`. */
export function paidTotal(orders: readonly PosOrderSummary[]): string {
  return formatCents(orders.filter((o) => o.status === 'finish').reduce((sum, o) => sum + parseCents(o.amount), 0));
}

/** Local midnight: "today" as the counter sees it. */
export function startOfToday(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

export function createOrdersStore(api: PosApi, opts: OrdersOptions = {}) {
  const pollMs = opts.refundPollMs ?? 500;
  const pollLimitMs = opts.refundPollLimitMs ?? 60_000;
  const now = opts.now ?? (() => Date.now());
  let generation = 0;

  return createStore<OrdersState>()((set, get) => {
    const patch = (prepayId: string, change: Partial<PosOrderSummary>) =>
      set({ orders: get().orders.map((o) => (o.prepayId === prepayId ? { ...o, ...change } : o)) });
    const done = (prepayId: string) => set({ refunding: get().refunding.filter((id) => id !== prepayId) });
    /** Re-reads the list quietly: a completed refund changes more of its line than the status (profit sharing). */
    async function refresh() {
      try {
        set({ orders: (await api.listOrders(startOfToday(now()))).orders });
      } catch {
        // The line already reads `refunded`; the next load brings the rest.
      }
    }

    /** The refund is accepted; the order reads `refunded` once the channel has completed it. */
    async function followRefund(prepayId: string, gen: number) {
      const until = now() + pollLimitMs;
      while (gen === generation && now() < until) {
        await new Promise((r) => setTimeout(r, pollMs));
        if (gen !== generation) return;
        try {
          const { order } = await api.getOrder(prepayId);
          patch(prepayId, { status: order.status });
          if (order.status === 'refunded') {
            done(prepayId);
            set({ notice: msg('refund.done', { id: prepayId, amount: formatMoneyText(order.amount) }) });
            await refresh();
            return;
          }
        } catch {
          // Keep trying until the limit; the list shows "refunding" meanwhile.
        }
      }
      if (gen === generation) {
        done(prepayId);
        set({ notice: msg('refund.pending', { id: prepayId }) });
      }
    }

    return {
      orders: [],
      loading: false,
      loaded: false,
      error: null,
      confirming: null,
      refunding: [],
      notice: null,
      async load() {
        set({ loading: true, error: null });
        try {
          const { orders } = await api.listOrders(startOfToday(now()));
          // A refund under way keeps its "refunding" line even if the list still says `finish`.
          set({ orders, loading: false, loaded: true });
        } catch (e) {
          set({ loading: false, error: describeFailure(e) });
        }
      },
      askRefund(prepayId) {
        set({ confirming: prepayId, notice: null, error: null });
      },
      cancelRefund() {
        set({ confirming: null });
      },
      async confirmRefund() {
        const prepayId = get().confirming;
        if (!prepayId || get().refunding.includes(prepayId)) return;
        set({ confirming: null, refunding: [...get().refunding, prepayId], error: null, notice: null });
        try {
          const { detail } = await api.refund(prepayId);
          patch(prepayId, { status: detail.status });
          if (detail.status === 'refunded') {
            done(prepayId);
            set({ notice: msg('refund.done', { id: prepayId, amount: formatMoneyText(detail.totalAmount) }) });
            await refresh();
          } else {
            void followRefund(prepayId, generation);
          }
        } catch (e) {
          done(prepayId);
          set({ error: msg('refund.failed', { id: prepayId, reason: describeFailure(e) }) });
        }
      },
      stop() {
        generation += 1;
        set({ refunding: [], confirming: null });
      },
    };
  });
}
