/** One order's page: its story, and the refund behind a confirmation (4.6: full refund of a paid order). */
import { createStore } from 'zustand/vanilla';
import type { ConsoleOrderDetail } from '@kit/shared/api/console';
import type { ConsoleApi } from '../api';
import { describeFailure, msg, type Msg } from '../i18n/i18n';
import { followResend, type FollowOptions } from './follow-resend';

export interface OrderState {
  prepayId: string | null;
  order: ConsoleOrderDetail | null;
  loading: boolean;
  confirming: boolean;
  refunding: boolean;
  message: Msg | null;
  /** Per callback id: what the last resend did. */
  resent: Record<string, Msg>;
  open(prepayId: string): Promise<void>;
  reload(): Promise<void>;
  askRefund(ask: boolean): void;
  refund(): Promise<void>;
  resend(id: string): Promise<void>;
}

export function createOrderStore(api: ConsoleApi, follow?: FollowOptions) {
  return createStore<OrderState>()((set, get) => ({
    prepayId: null,
    order: null,
    loading: false,
    confirming: false,
    refunding: false,
    message: null,
    resent: {},
    async open(prepayId) {
      set({ prepayId, order: null, confirming: false, message: null, resent: {} });
      await get().reload();
    },
    async reload() {
      const prepayId = get().prepayId;
      if (!prepayId) return;
      set({ loading: true });
      try {
        const { order } = await api.order(prepayId);
        if (get().prepayId === prepayId) set({ order, loading: false });
      } catch (e) {
        if (get().prepayId === prepayId) set({ loading: false, message: describeFailure(e) });
      }
    },
    askRefund(ask) {
      set({ confirming: ask, message: null });
    },
    async refund() {
      const prepayId = get().prepayId;
      if (!prepayId) return;
      set({ refunding: true, message: null });
      try {
        const { order } = await api.refund(prepayId);
        set({ order, refunding: false, confirming: false });
      } catch (e) {
        set({ refunding: false, confirming: false, message: describeFailure(e) });
      }
    },
    async resend(id) {
      const item = get().order?.callbacks.find((c) => c.id === id);
      set({ resent: { ...get().resent, [id]: msg('cb.resent') } });
      try {
        const { resent } = await api.resend(id);
        if (!resent) set({ resent: { ...get().resent, [id]: msg('cb.alreadyPending') } });
        else if (item) set({ resent: { ...get().resent, [id]: await followResend(api, item, follow) } });
      } catch (e) {
        set({ resent: { ...get().resent, [id]: describeFailure(e) } });
      }
      await get().reload();
    },
  }));
}
