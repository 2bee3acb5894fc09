/**
 * The display's only way out: JSON calls to the POS router (`api/…` relative to the page, so the
 * display works under any path prefix). Failures become `KitApiError` (an answer that is not a
 * success) or `KitNetworkError` (no answer), the same types the long-poll loop understands.
 */
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import type {
  PosBalanceQuery,
  PosBalanceResponse,
  PosCodePaymentResponse,
  PosLoginResponse,
  PosOrderListResponse,
  PosOrderResponse,
  PosPointsCodeResponse,
  PosPointsSessionRequest,
  PosPointsSessionResponse,
  PosRefundResponse,
  PosWaitResponse,
  PosSessionResponse,
} from '@kit/shared/api/pos';

/** What the stores need from the router; tests give a fake of it. */
export interface PosApi {
  login(userId: string, pw: string): Promise<PosLoginResponse>;
  logout(): Promise<void>;
  session(): Promise<PosSessionResponse>;
  createOrder(amount: string): Promise<PosOrderResponse>;
  getOrder(prepayId: string): Promise<PosOrderResponse>;
  /** 4.2 with waitForFinish=1 through the router: resolves when the service answers (held). */
  waitOrder(prepayId: string, signal?: AbortSignal): Promise<PosWaitResponse>;
  listOrders(since: number): Promise<PosOrderListResponse>;
  refund(prepayId: string): Promise<PosRefundResponse>;
  /** Charges the payer's payment code for the order (7.4): paid, waiting for the payer, refused or cancelled. */
  payCode(prepayId: string, authCode: string): Promise<PosCodePaymentResponse>;
  balance(q: PosBalanceQuery): Promise<PosBalanceResponse>;
  startPoints(req: PosPointsSessionRequest): Promise<PosPointsSessionResponse>;
  pointsCode(handle: string, signal?: AbortSignal): Promise<PosPointsCodeResponse>;
  /** The order's mini-program code as the platform drew it, as a `data:` URL (the page's CSP allows those). */
  miniProgramCode(prepayId: string, signal?: AbortSignal): Promise<string>;
}

export interface HttpApiOptions {
  /** Base of the router, default `api/` (relative to the page at /pos/). */
  base?: string;
  fetch?: typeof fetch;
  /** Called on every 401 except a refused login: the login is no longer valid. */
  onUnauthorized?: () => void;
}

/** Ordinary calls give up after this; the held wait call gets the service's longest hold on top. */
const CALL_TIMEOUT_MS = 15_000;
const WAIT_TIMEOUT_MS = 65_000;
/** A payment code's call: the wallet's time limit, then a cancel's, on top of an ordinary call. */
const CODE_TIMEOUT_MS = 45_000;

export function createHttpApi(opts: HttpApiOptions = {}): PosApi {
  const base = opts.base ?? 'api/';
  const doFetch = opts.fetch ?? ((input, init) => fetch(input, init));

  async function call<T>(method: string, path: string, body?: unknown, o: { signal?: AbortSignal; timeoutMs?: number; isLogin?: boolean } = {}): Promise<T> {
    const timeout = AbortSignal.timeout(o.timeoutMs ?? CALL_TIMEOUT_MS);
    const signal = o.signal ? anySignal([o.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await doFetch(base + path, {
        method,
        credentials: 'same-origin',
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (e) {
      if (o.signal?.aborted) throw e;
      throw new KitNetworkError(timeout.aborted ? 'the server did not answer in time' : 'the network is unreachable', e);
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = (await res.json()) as Record<string, unknown>;
    } catch (e) {
      if (o.signal?.aborted) throw e;
      throw new KitNetworkError(`the server answered ${res.status} without a readable body`, e);
    }
    if (!res.ok || parsed.status === 'fail') {
      if (res.status === 401 && !o.isLogin) opts.onUnauthorized?.();
      throw new KitApiError(res.status, parsed);
    }
    return parsed as T;
  }

  /** An image, or the router's JSON failure. */
  async function image(path: string, signal?: AbortSignal): Promise<string> {
    const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
    let res: Response;
    let bytes: Blob;
    try {
      res = await doFetch(base + path, {
        credentials: 'same-origin',
        headers: { accept: 'image/*, application/json' },
        signal: signal ? anySignal([signal, timeout]) : timeout,
      });
      bytes = await res.blob();
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new KitNetworkError(timeout.aborted ? 'the server did not answer in time' : 'the network is unreachable', e);
    }
    if (res.ok && /^image\//.test(bytes.type || res.headers.get('content-type') || '')) return dataUrl(bytes);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(await bytes.text()) as Record<string, unknown>;
    } catch (e) {
      throw new KitNetworkError(`the server answered ${res.status} without an image or a readable body`, e);
    }
    if (res.status === 401) opts.onUnauthorized?.();
    throw new KitApiError(res.status, parsed);
  }

  const id = encodeURIComponent;
  return {
    login: (userId, pw) => call('POST', 'login', { userId, pw }, { isLogin: true }),
    logout: async () => {
      await call('POST', 'logout');
    },
    session: () => call('GET', 'session'),
    createOrder: (amount) => call('POST', 'orders', { amount }),
    getOrder: (prepayId) => call('GET', `orders/${id(prepayId)}`),
    waitOrder: (prepayId, signal) => call('GET', `orders/${id(prepayId)}/wait`, undefined, { signal, timeoutMs: WAIT_TIMEOUT_MS }),
    listOrders: (since) => call('GET', `orders?since=${since}`),
    refund: (prepayId) => call('POST', `orders/${id(prepayId)}/refund`),
    payCode: (prepayId, authCode) => call('POST', `orders/${id(prepayId)}/code`, { authCode }, { timeoutMs: CODE_TIMEOUT_MS }),
    balance: (q) => call('GET', `points/balance?${new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined) as [string, string][])}`),
    startPoints: (req) => call('POST', 'points/sessions', req),
    pointsCode: (handle, signal) => call('POST', 'points/code', { handle }, { signal }),
    miniProgramCode: (prepayId, signal) => image(`orders/${id(prepayId)}/mini-program-code`, signal),
  };
}

function dataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new KitNetworkError('the image could not be read', reader.error));
    reader.readAsDataURL(blob);
  });
}

/** `AbortSignal.any` where available, a small stand-in elsewhere (older jsdom, older browsers). */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const native = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (native) return native(signals);
  const ctl = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      ctl.abort(s.reason);
      break;
    }
    s.addEventListener('abort', () => ctl.abort(s.reason), { once: true });
  }
  return ctl.signal;
}
