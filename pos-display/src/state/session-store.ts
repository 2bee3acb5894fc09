/** Who is logged in. The token itself is an httpOnly cookie the page never sees. */
import { createStore } from 'zustand/vanilla';
import { KitApiError } from '@kit/shared/errors';
import type { PosSession } from '@kit/shared/api/pos';
import type { PosApi } from '../api/client';
import { describeFailure } from '../i18n/failure';
import { msg, type Msg } from '../i18n/i18n';

export interface SessionState {
  phase: 'checking' | 'loggedOut' | 'loggedIn';
  session: PosSession | null;
  busy: boolean;
  /** Why the cashier is looking at the login screen, or why the login failed. */
  message: Msg | null;
  restore(): Promise<void>;
  login(userId: string, pw: string): Promise<boolean>;
  logout(): Promise<void>;
  /** Any 401 from the router: the login is no longer valid. */
  expired(): void;
}

export function createSessionStore(api: PosApi, onLeave: () => void = () => {}) {
  return createStore<SessionState>()((set, get) => ({
    phase: 'checking',
    session: null,
    busy: false,
    message: null,
    async restore() {
      set({ phase: 'checking' });
      try {
        const { session, expired } = await api.session();
        if (session) set({ phase: 'loggedIn', session, message: null });
        else set({ phase: 'loggedOut', session: null, message: expired ? msg('error.login_invalid') : null });
      } catch (e) {
        const lost = e instanceof KitApiError && e.httpStatus === 401;
        set({ phase: 'loggedOut', session: null, message: lost ? null : describeFailure(e) });
      }
    },
    async login(userId, pw) {
      set({ busy: true, message: null });
      try {
        const { session } = await api.login(userId.trim(), pw);
        set({ phase: 'loggedIn', session, busy: false, message: null });
        return true;
      } catch (e) {
        const message = describeFailure(e);
        set({ busy: false, message });
        return false;
      }
    },
    async logout() {
      onLeave();
      set({ phase: 'loggedOut', session: null, message: null });
      await api.logout().catch(() => undefined);
    },
    expired() {
      if (get().phase !== 'loggedIn') return;
      onLeave();
      set({ phase: 'loggedOut', session: null, message: msg('error.login_invalid') });
    },
  }));
}
