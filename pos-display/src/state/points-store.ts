/**
 * Points mode: the balance and a deduction code (4.13) for one user and point type. A fresh code
 * is fetched every 5 s for the same session uuid; each is valid 20 s from when it arrived. The
 * screen counts down to the next code (what it says happens every 5 s); only when a refresh fails
 * does it count down the code on screen's own validity instead. Leaving the screen stops every
 * timer and request.
 */
import { createStore } from 'zustand/vanilla';
import { AmountError, MAX_POINT_UNITS, POINT_SCALE, parseDecimal, parsePoints } from '@kit/shared/money';
import { KitApiError } from '@kit/shared/errors';
import { DEDUCTION_CODE_REFRESH_MS, DEDUCTION_CODE_TTL_MS, type PosPointsSession } from '@kit/shared/api/pos';
import type { PosApi } from '../api/client';
import { amountProblem, describeFailure } from '../i18n/failure';
import { msg, type Msg } from '../i18n/i18n';

export interface PointsForm {
  userId: string;
  tokenId: string;
  /** Empty means the app that owns the sub-merchant issued the point type. */
  tokenAppId: string;
  maxAmount: string;
}

export interface PointsCodeShown {
  content: string;
  /** Local time the code arrived; it is valid until `receivedAt + validForMs`. */
  receivedAt: number;
  validForMs: number;
  /** When the next code is due: `receivedAt` + the refresh interval. */
  nextAt: number;
  /** Counts codes, so a test or the screen can tell a new one arrived. */
  serial: number;
}

export interface PointsState {
  phase: 'form' | 'starting' | 'running' | 'done' | 'ended';
  form: PointsForm;
  formError: Msg | null;
  session: PosPointsSession | null;
  code: PointsCodeShown | null;
  balance: string | null;
  startBalance: string | null;
  /** The clock the countdown is drawn from (updated a few times a second while running). */
  now: number;
  /** A refresh failed; the code on screen stays until it runs out. */
  network: Msg | null;
  message: Msg | null;
  setForm(change: Partial<PointsForm>): void;
  checkBalance(): Promise<void>;
  start(): Promise<void>;
  stop(): void;
}

export interface PointsOptions {
  /**
   * Where the shop's point type and issuing app are remembered between customers and reloads
   * (the display's localStorage): a cashier sets them once, then only scans a customer.
   */
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
  refreshMs?: number;
  validMs?: number;
  /** Countdown redraw interval. */
  tickMs?: number;
}

export function validatePointsForm(form: PointsForm): Msg | null {
  if (!form.userId.trim()) return msg('points.enterUser');
  if (!form.tokenId.trim()) return msg('points.enterToken');
  try {
    parsePoints(form.maxAmount.trim());
  } catch (e) {
    if (e instanceof AmountError) return msg('points.maxProblem', { problem: amountProblem(e.problem, 'points') });
    throw e;
  }
  return null;
}

/**
 * The maximum the cashier typed is more than the balance: the code will offer it, but a
 * deduction can never take more than the customer has. Null when it fits or cannot be compared.
 */
export function maxAboveBalance(maxAmount: string, balance: string | null): boolean {
  if (balance === null) return false;
  try {
    return parsePoints(maxAmount.trim()) > balanceUnits(balance);
  } catch {
    return false;
  }
}

/** Seconds left, rounded up; 0 once expired. */
export function secondsLeft(code: PointsCodeShown | null, now: number): number {
  if (!code) return 0;
  return Math.max(0, Math.ceil((code.receivedAt + code.validForMs - now) / 1000));
}

/** Seconds until the next code, rounded up, at least 1 (while the next one is on its way, it is "in 1 s"). */
export function secondsToNext(code: PointsCodeShown | null, now: number): number {
  if (!code) return 0;
  return Math.max(1, Math.ceil((code.nextAt - now) / 1000));
}

const SAVED_TYPE = 'pos-display-point-type';

function savedPointType(storage: PointsOptions['storage']): Pick<PointsForm, 'tokenId' | 'tokenAppId'> {
  try {
    const v = JSON.parse(storage?.getItem(SAVED_TYPE) ?? 'null') as Partial<PointsForm> | null;
    return { tokenId: typeof v?.tokenId === 'string' ? v.tokenId : '', tokenAppId: typeof v?.tokenAppId === 'string' ? v.tokenAppId : '' };
  } catch {
    return { tokenId: '', tokenAppId: '' };
  }
}

export function createPointsStore(api: PosApi, opts: PointsOptions = {}) {
  const refreshMs = opts.refreshMs ?? DEDUCTION_CODE_REFRESH_MS;
  const validMs = opts.validMs ?? DEDUCTION_CODE_TTL_MS;
  const tickMs = opts.tickMs ?? 250;
  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  let tickTimer: ReturnType<typeof setInterval> | null = null;
  let ctl: AbortController | null = null;
  let serial = 0;

  const store = createStore<PointsState>()((set, get) => {
    function clearTimers() {
      if (refreshTimer) clearTimeout(refreshTimer);
      if (tickTimer) clearInterval(tickTimer);
      refreshTimer = null;
      tickTimer = null;
      ctl?.abort();
      ctl = null;
    }

    async function refresh(session: PosPointsSession, signal: AbortSignal) {
      const started = Date.now();
      try {
        const { code } = await api.pointsCode(session.handle, signal);
        if (signal.aborted) return;
        if (code.spent || code.chainLink === null) {
          // The customer paid with one of this session's codes.
          clearTimers();
          set({ phase: 'done', code: null, network: null, message: null, balance: code.balance ?? get().balance });
          return;
        }
        serial += 1;
        const received = Date.now();
        set({
          code: {
            content: code.chainLink,
            receivedAt: received,
            validForMs: Math.min(validMs, code.validForMs || validMs),
            nextAt: received + refreshMs,
            serial,
          },
          balance: code.balance ?? get().balance,
          network: null,
          now: received,
        });
        if (deducted(get().startBalance, code.balance)) {
          clearTimers();
          set({ phase: 'done', message: null });
          return;
        }
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof KitApiError && e.error === 'uuid_spent') {
          // The customer paid with one of this session's codes: show the balance after it.
          clearTimers();
          set({ phase: 'done', code: null, network: null, message: null });
          try {
            const after = await api.balance({ userId: session.userId, tokenId: session.tokenId, tokenAppId: session.tokenAppId });
            set({ balance: after.balance });
          } catch {
            // The "deducted" screen still stands; the balance shown is the last one read.
          }
          return;
        }
        if (e instanceof KitApiError && e.httpStatus < 500) {
          // The session ended (or the login did: the API hook handles that). Nothing more to refresh.
          clearTimers();
          set({ phase: 'ended', code: null, network: null, message: describeFailure(e) });
          return;
        }
        set({ network: describeFailure(e) });
      }
      // Every 5 s from the start of the previous request, never two at once.
      const wait = Math.max(0, refreshMs - (Date.now() - started));
      refreshTimer = setTimeout(() => void refresh(session, signal), wait);
    }

    return {
      phase: 'form',
      form: { userId: '', maxAmount: '', ...savedPointType(opts.storage) },
      formError: null,
      session: null,
      code: null,
      balance: null,
      startBalance: null,
      now: Date.now(),
      network: null,
      message: null,
      setForm(change) {
        const form = { ...get().form, ...change };
        const before = get().form;
        // A balance read for another customer or point type says nothing about this one.
        const sameWho = form.userId === before.userId && form.tokenId === before.tokenId && form.tokenAppId === before.tokenAppId;
        set({ form, formError: null, ...(sameWho ? {} : { balance: null }) });
      },
      async checkBalance() {
        const f = get().form;
        if (!f.userId.trim() || !f.tokenId.trim()) {
          set({ formError: msg('points.enterBoth') });
          return;
        }
        try {
          const answer = await api.balance({ userId: f.userId.trim(), tokenId: f.tokenId.trim(), tokenAppId: f.tokenAppId.trim() || undefined });
          set({ balance: answer.balance, formError: null });
        } catch (e) {
          set({ formError: describeFailure(e) });
        }
      },
      async start() {
        const f = get().form;
        const problem = validatePointsForm(f);
        if (problem) {
          set({ formError: problem });
          return;
        }
        clearTimers();
        const mine = new AbortController();
        ctl = mine;
        set({ phase: 'starting', formError: null, message: null, code: null, network: null });
        try {
          const { session, balance } = await api.startPoints({
            userId: f.userId.trim(),
            tokenId: f.tokenId.trim(),
            tokenAppId: f.tokenAppId.trim() || undefined,
            maxAmount: f.maxAmount.trim(),
          });
          if (mine.signal.aborted) return;
          try {
            opts.storage?.setItem(SAVED_TYPE, JSON.stringify({ tokenId: f.tokenId.trim(), tokenAppId: f.tokenAppId.trim() }));
          } catch {
            // A display without storage asks for the point type again after a reload.
          }
          set({ phase: 'running', session, balance, startBalance: balance, now: Date.now() });
          tickTimer = setInterval(() => set({ now: Date.now() }), tickMs);
          await refresh(session, mine.signal);
        } catch (e) {
          if (mine.signal.aborted) return;
          clearTimers();
          set({ phase: 'form', formError: describeFailure(e) });
        }
      },
      stop() {
        clearTimers();
        // After a customer's code was used or ended, the next customer starts blank: their own id, their own amount.
        const next = get().phase === 'done' || get().phase === 'ended';
        const form = next ? { ...get().form, userId: '', maxAmount: '' } : get().form;
        set({ phase: 'form', form, session: null, code: null, network: null, message: null, startBalance: null, ...(next ? { balance: null } : {}) });
      },
    };
  });
  return store;
}

/** The code was used: the balance went down since the session started. */
function deducted(start: string | null, current: string | null): boolean {
  if (start === null || current === null) return false;
  try {
    return balanceUnits(current) < balanceUnits(start);
  } catch {
    return false;
  }
}

const balanceUnits = (text: string): number => parseDecimal(text, { scale: POINT_SCALE, max: MAX_POINT_UNITS, allowZero: true });
