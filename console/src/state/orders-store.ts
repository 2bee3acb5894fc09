/** The order list: one day (this browser's), a status, a sub-merchant; or one order found by its prepay id. */
import { createStore } from 'zustand/vanilla';
import type { ConsoleOrderLine } from '@kit/shared/api/console';
import type { ConsoleApi, OrdersFilter } from '../api';
import { describeFailure, type Msg } from '../i18n/i18n';

export interface OrdersState {
  filter: OrdersFilter;
  orders: ConsoleOrderLine[] | null;
  loading: boolean;
  message: Msg | null;
  set(patch: Partial<OrdersFilter>): Promise<void>;
  load(): Promise<void>;
}

export const today = (now = new Date()) => {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
};

export function createOrdersStore(api: ConsoleApi) {
  let seq = 0;
  return createStore<OrdersState>()((set, get) => ({
    filter: { day: today() },
    orders: null,
    loading: false,
    message: null,
    async set(patch) {
      set({ filter: { ...get().filter, ...patch } });
      await get().load();
    },
    async load() {
      const mine = ++seq;
      set({ loading: true, message: null });
      try {
        const { orders } = await api.orders(get().filter);
        if (mine === seq) set({ orders, loading: false });
      } catch (e) {
        if (mine === seq) set({ loading: false, message: describeFailure(e) });
      }
    },
  }));
}
