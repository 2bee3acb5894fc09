/**
 * The console's only way out: JSON calls to the console router (`api/…` relative to the page, so it
 * works under any path prefix). Failures become `KitApiError` (an answer that is not a success) or
 * `KitNetworkError` (no answer).
 */
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import type { CallbackItem } from '@kit/shared/api/callbacks';
import type {
  ConsoleOrderDetail,
  ConsoleOrderLine,
  ConsoleReceived,
  ConsoleReconciliationDay,
  ConsoleReconciliationReport,
  ConsoleReconcileRun,
  ConsoleSession,
} from '@kit/shared/api/console';

export interface OrdersFilter {
  day: string;
  status?: string;
  subMerchantId?: string;
  prepayId?: string;
}

export interface ConsoleApi {
  login(userId: string, pw: string): Promise<{ session: ConsoleSession }>;
  logout(): Promise<void>;
  session(): Promise<{ session: ConsoleSession | null; expired?: boolean }>;
  orders(f: OrdersFilter): Promise<{ orders: ConsoleOrderLine[] }>;
  order(prepayId: string): Promise<{ order: ConsoleOrderDetail }>;
  refund(prepayId: string): Promise<{ order: ConsoleOrderDetail }>;
  callbacks(q?: { state?: CallbackItem['state']; prepayId?: string }): Promise<{ callbacks: CallbackItem[] }>;
  resend(id: string): Promise<{ resent: boolean }>;
  recover(since: string, until: string): Promise<{ resent: number }>;
  received(): Promise<{ received: ConsoleReceived[] }>;
  reconciliations(): Promise<{ days: ConsoleReconciliationDay[] }>;
  reconciliation(date: string): Promise<{ reports: ConsoleReconciliationReport[] }>;
  reconcileNow(date: string): Promise<{ runs: ConsoleReconcileRun[] }>;
}

const CALL_TIMEOUT_MS = 15_000;

export function createHttpApi(opts: { base?: string; onUnauthorized?: () => void } = {}): ConsoleApi {
  const base = opts.base ?? 'api/';

  async function call<T>(method: string, path: string, body?: unknown, isLogin = false): Promise<T> {
    const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        credentials: 'same-origin',
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: timeout,
      });
    } catch (e) {
      throw new KitNetworkError(timeout.aborted ? 'the server did not answer in time' : 'the network is unreachable', e);
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = (await res.json()) as Record<string, unknown>;
    } catch (e) {
      throw new KitNetworkError(`the server answered ${res.status} without a readable body`, e);
    }
    if (!res.ok || parsed.status === 'fail') {
      if (res.status === 401 && !isLogin) opts.onUnauthorized?.();
      throw new KitApiError(res.status, parsed);
    }
    return parsed as T;
  }

  const id = encodeURIComponent;
  const query = (f: object) => new URLSearchParams(Object.entries(f).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')).toString();
  return {
    login: (userId, pw) => call('POST', 'login', { userId, pw }, true),
    logout: async () => {
      await call('POST', 'logout');
    },
    session: () => call('GET', 'session'),
    orders: (f) => call('GET', `orders?${query({ ...f, tz: String(-new Date(`${f.day}T12:00:00`).getTimezoneOffset()) })}`),
    order: (prepayId) => call('GET', `orders/${id(prepayId)}`),
    refund: (prepayId) => call('POST', `orders/${id(prepayId)}/refund`),
    callbacks: (q = {}) => call('GET', `callbacks?${query(q)}`),
    resend: (cb) => call('POST', `callbacks/${id(cb)}/resend`),
    recover: (since, until) => call('POST', 'callbacks/recover', { since, until }),
    received: () => call('GET', 'receiver'),
    reconciliations: () => call('GET', 'reconciliation'),
    reconciliation: (date) => call('GET', `reconciliation/${id(date)}`),
    reconcileNow: (date) => call('POST', `reconciliation/${id(date)}/run`),
  };
}
