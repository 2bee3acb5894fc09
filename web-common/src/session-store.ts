/**
 * Who is logged in to a front end's router (the POS display's, the console's). The login token
 * itself is an httpOnly cookie the page never sees; the page only learns whether it holds one.
 */
import { createStore } from 'zustand/vanilla';
import { KitApiError } from '@kit/shared/errors';

/** The three calls of a router's login API. */
export interface SessionApi<S> {
  session(): Promise<{ session: S | null; expired?: boolean }>;
  login(userId: string, pw: string): Promise<{ session: S }>;
  logout(): Promise<void>;
}

export interface SessionState<S, M> {
  phase: 'checking' | 'loggedOut' | 'loggedIn';
  session: S | null;
  busy: boolean;
  /** Why the login screen is showing, or why the login failed. */
  message: M | null;
  restore(): Promise<void>;
  login(userId: string, pw: string): Promise<boolean>;
  logout(): Promise<void>;
  /** Any 401 from the router: the login is no longer valid. */
  expired(): void;
}

export interface SessionWords<M> {
  /** A failure in the front end's words. */
  describeFailure(e: unknown): M;
  /** "Your login is no longer valid, log in again." */
  loginInvalid: M;
}

/** `onLeave` runs when the session ends (logout, expiry): the front end stops what talks to the router. */
export function createSessionStore<S, M>(api: SessionApi<S>, words: SessionWords<M>, onLeave: () => void = () => {}) {
  return createStore<SessionState<S, M>>()((set, get) => ({
    phase: 'checking',
    session: null,
    busy: false,
    message: null,
    async restore() {
      set({ phase: 'checking' });
      try {
        const { session, expired } = await api.session();
        if (session) set({ phase: 'loggedIn', session, message: null });
        else set({ phase: 'loggedOut', session: null, message: expired ? words.loginInvalid : null });
      } catch (e) {
        const lost = e instanceof KitApiError && e.httpStatus === 401;
        set({ phase: 'loggedOut', session: null, message: lost ? null : words.describeFailure(e) });
      }
    },
    async login(userId, pw) {
      set({ busy: true, message: null });
      try {
        const { session } = await api.login(userId.trim(), pw);
        set({ phase: 'loggedIn', session, busy: false, message: null });
        return true;
      } catch (e) {
        set({ busy: false, message: words.describeFailure(e) });
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
      set({ phase: 'loggedOut', session: null, message: words.loginInvalid });
    },
  }));
}
