/** The callbacks view: given up first, then pending, then delivered; resend (and what became of it), recover a window, and the development receiver. */
import { createStore } from 'zustand/vanilla';
import type { CallbackItem } from '@kit/shared/api/callbacks';
import type { ConsoleReceived } from '@kit/shared/api/console';
import type { ConsoleApi } from '../api';
import { counted, describeFailure, msg, type Msg } from '../i18n/i18n';
import { followResend, type FollowOptions } from './follow-resend';

export interface CallbacksState {
  items: CallbackItem[] | null;
  received: ConsoleReceived[];
  loading: boolean;
  message: Msg | null;
  resent: Record<string, Msg>;
  load(withReceiver: boolean): Promise<void>;
  resend(id: string, withReceiver: boolean): Promise<void>;
  recover(since: string, until: string, withReceiver: boolean): Promise<void>;
}

const ORDER: Record<CallbackItem['state'], number> = { given_up: 0, pending: 1, delivered: 2 };

export function createCallbacksStore(api: ConsoleApi, follow?: FollowOptions) {
  return createStore<CallbacksState>()((set, get) => ({
    items: null,
    received: [],
    loading: false,
    message: null,
    resent: {},
    async load(withReceiver) {
      set({ loading: true });
      try {
        // Given-up callbacks come in full even when many others were delivered since.
        const [givenUp, all, received] = await Promise.all([
          api.callbacks({ state: 'given_up' }),
          api.callbacks(),
          withReceiver ? api.received() : Promise.resolve({ received: [] }),
        ]);
        const seen = new Set<string>();
        const items = [...givenUp.callbacks, ...all.callbacks]
          .filter((c) => !seen.has(c.id) && seen.add(c.id))
          .sort((a, b) => ORDER[a.state] - ORDER[b.state] || Number(b.id) - Number(a.id));
        set({ items, received: received.received, loading: false });
      } catch (e) {
        set({ loading: false, message: describeFailure(e) });
      }
    },
    async resend(id, withReceiver) {
      const item = get().items?.find((c) => c.id === id);
      set({ resent: { ...get().resent, [id]: msg('cb.resent') } });
      try {
        const { resent } = await api.resend(id);
        if (!resent) set({ resent: { ...get().resent, [id]: msg('cb.alreadyPending') } });
        else if (item) set({ resent: { ...get().resent, [id]: await followResend(api, item, follow) } });
      } catch (e) {
        set({ resent: { ...get().resent, [id]: describeFailure(e) } });
      }
      await get().load(withReceiver);
    },
    async recover(since, until, withReceiver) {
      set({ message: null });
      try {
        const { resent } = await api.recover(since, until);
        set({ message: counted('cb.recovered', resent) });
      } catch (e) {
        set({ message: describeFailure(e) });
      }
      await get().load(withReceiver);
    },
  }));
}
