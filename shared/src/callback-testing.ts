/**
 * For merchants' tests (like stripe's `generateTestHeaderString`): builds a callback exactly as the
 * service would send it, signed with the given AppSecret, to feed a handler or `verifyCallback`.
 */
import type { CallbackEvent } from './api/payment';
import { signCallbackUrl, splitTarget } from './callback';

export interface TestCallbackOptions {
  /** The callback URL as configured in `notifyCallbackUrl`. */
  url: string;
  appId: string;
  appSecret: string;
  /** Fields of the body; anything left out gets a plausible value. */
  event?: Partial<CallbackEvent>;
  /** Signing time (`_t`), Unix ms; default now. */
  t?: number;
}

export interface TestCallback {
  /** The full URL to POST to, `_appid`, `_t` and `_s` included. */
  url: string;
  /** Path and query, as a server sees them in `req.url`. */
  target: string;
  path: string;
  rawQuery: string;
  /** The exact body bytes that were signed. */
  body: string;
  event: CallbackEvent;
  headers: Record<string, string>;
}

export function generateTestCallback(opts: TestCallbackOptions): TestCallback {
  const t = opts.t ?? Date.now();
  const event: CallbackEvent = {
    notifyTime: new Date(t).toISOString(),
    prepayId: 'TestPrepay01',
    status: 'finish',
    subMerchantId: 'SMtest000001',
    merchantId: 'PMtest000001',
    ...opts.event,
  };
  // Same field order as the service sends.
  const body = JSON.stringify({
    notifyTime: event.notifyTime,
    prepayId: event.prepayId,
    status: event.status,
    subMerchantId: event.subMerchantId,
    merchantId: event.merchantId,
  });
  const url = signCallbackUrl(opts.url, body, { appId: opts.appId, appSecret: opts.appSecret }, t);
  const { path, rawQuery } = splitTarget(url);
  return { url, target: `${path}?${rawQuery}`, path, rawQuery, body, event, headers: { 'content-type': 'application/json' } };
}
