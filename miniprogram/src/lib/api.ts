/**
 * Calls to the mini-program router (`/mp/api/*` on the kit server); a wallet's file
 * (`src/wallets/`) calls the sandbox's phone side with `call` too. Everything goes through
 * `Taro.request`, so the same code runs in the mini-program and in the H5 build. The page never
 * sees an open id, an app secret or a signature: the router holds those.
 */
import Taro from '@tarojs/taro';
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import type { MpOrder, MpPayRequest, MpPayResponse } from '@kit/shared/api/mp';

/** Build-time constant (config/index.ts) for the weapp build; H5 derives the base from its own URL. */
declare const KIT_API_BASE: string;

/** The router's answer to "pay": `success` with the way's args, or anything else (the way refused: scan again). */
export type PayAnswer = MpPayResponse;

/** A held call (4.2 waitForFinish) may last up to 55 s on the server. */
const WAIT_TIMEOUT_MS = 65_000;
const CALL_TIMEOUT_MS = 15_000;

/** The kit service's base URL (no trailing slash): where `/mp/api` and `/sandbox` live. */
export function serviceBase(): string {
  if (process.env.TARO_ENV === 'h5') {
    // The H5 build is served at `<service>/mp/`; whatever precedes `/mp/` is the service's path prefix.
    const { origin, pathname } = window.location;
    const at = pathname.lastIndexOf('/mp/');
    return `${origin}${at >= 0 ? pathname.slice(0, at) : ''}`;
  }
  const base = typeof KIT_API_BASE === 'string' ? KIT_API_BASE : '';
  return base.replace(/\/+$/, '');
}

interface CallOptions {
  method?: 'GET' | 'POST';
  data?: Record<string, unknown>;
  timeout?: number;
  signal?: AbortSignal;
}

/** One request; resolves with the body of a 200, throws KitApiError (other status) or KitNetworkError. */
export async function call<T>(url: string, opts: CallOptions = {}): Promise<T> {
  const method = opts.method ?? 'GET';
  let res: Taro.request.SuccessCallbackResult<string | TaroGeneral.IAnyObject | ArrayBuffer>;
  try {
    const task = Taro.request({
      url,
      method,
      data: opts.data,
      header: opts.data ? { 'content-type': 'application/json' } : {},
      dataType: 'json',
      timeout: opts.timeout ?? CALL_TIMEOUT_MS,
    });
    if (opts.signal) {
      if (opts.signal.aborted) task.abort?.();
      else opts.signal.addEventListener('abort', () => task.abort?.(), { once: true });
    }
    res = await task;
  } catch (e) {
    const msg = (e as { errMsg?: string; message?: string })?.errMsg ?? (e as Error)?.message ?? String(e);
    throw new KitNetworkError(`${method} ${url} failed: ${msg}`, e);
  }
  const body = parseBody(res.data);
  if (body === undefined) throw new KitNetworkError(`${method} ${url}: answer ${res.statusCode} is not JSON`);
  if (res.statusCode !== 200) throw new KitApiError(res.statusCode, body as KitApiError['body']);
  return body as T;
}

function parseBody(data: unknown): Record<string, unknown> | undefined {
  if (typeof data === 'string') {
    try {
      const parsed = JSON.parse(data) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
  return data && typeof data === 'object' ? (data as Record<string, unknown>) : undefined;
}

const mpApi = (path: string) => `${serviceBase()}/mp/api${path}`;

/** The order's 4.2 detail (plus number and items) through the router; `wait` holds until it leaves `active` or the hold ends. */
export function getOrder(prepayId: string, opts: { wait?: boolean; signal?: AbortSignal } = {}): Promise<MpOrder> {
  return call<MpOrder>(mpApi(`/orders/${encodeURIComponent(prepayId)}?wait=${opts.wait ? 1 : 0}`), {
    timeout: opts.wait ? WAIT_TIMEOUT_MS : CALL_TIMEOUT_MS,
    signal: opts.signal,
  });
}

/**
 * The way's `args` through the router: for a mini-program's way with its login code, which the router
 * exchanges for the payer's open id; for a page in a wallet's browser with where to come back.
 */
export function pay(req: MpPayRequest): Promise<PayAnswer> {
  const data = Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined));
  return call<PayAnswer>(mpApi('/pay'), { method: 'POST', data });
}
