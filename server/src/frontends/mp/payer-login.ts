/**
 * The backend half of the mini-program login: exchange the code of `wx.login` for the payer's
 * open id at the platform's `jscode2session` endpoint (the sandbox's in development: a development
 * plug-in's adapter, `plugins/dev-plugin.ts`). The open id
 * stays on the server; the mini-program never receives it (specification 4.4).
 */
import type { Clock } from '@kit/shared/clock';
import { KitError } from '@kit/shared';

/** The platform's own login-code exchange: MP_LOGIN_URL's default when no development plug-in stands in for it. */
export const PLATFORM_LOGIN_URL = 'https://api.weixin.qq.com/sns/jscode2session';

export interface PayerLoginOptions {
  appId?: string;
  secret?: string;
  /** Resolved per call: in development the default points at this service's sandbox, whose URL is known only once it listens. */
  loginUrl: () => string;
  timeoutMs?: number;
  /** The service's clock, which the call's time limit runs on. */
  clock: Clock;
  fetch?: typeof fetch;
}

export class PayerLogin {
  constructor(private readonly opts: PayerLoginOptions) {}

  /** The open id for a login code; `mp_login_failed` when the platform refuses the code. */
  async openIdFor(code: string): Promise<string> {
    const { appId, secret } = this.opts;
    if (!appId || !secret) throw new KitError('mp_not_configured', 'set MP_APPID and MP_SECRET to let payers log in');
    const url = new URL(this.opts.loginUrl());
    url.searchParams.set('appid', appId);
    url.searchParams.set('secret', secret);
    url.searchParams.set('js_code', code);
    url.searchParams.set('grant_type', 'authorization_code');
    let status: number;
    let text: string;
    try {
      const res = await (this.opts.fetch ?? fetch)(url, { signal: this.opts.clock.timeout(this.opts.timeoutMs ?? 10_000) });
      status = res.status;
      text = await res.text();
    } catch {
      // The URL carries the secret: never put it (or the error that quotes it) in a message.
      throw new KitError('mp_login_unavailable');
    }
    if (status >= 500) throw new KitError('mp_login_unavailable', `the login service answered HTTP ${status}`);
    let body: { openid?: unknown; errcode?: unknown; errmsg?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new KitError('mp_login_unavailable', `the login service answered HTTP ${status} without JSON`);
    }
    if (typeof body?.openid === 'string' && body.openid.length > 0 && (body.errcode === undefined || body.errcode === 0)) {
      return body.openid;
    }
    const why = body?.errcode !== undefined ? ` (errcode ${String(body.errcode)}: ${String(body.errmsg ?? '').slice(0, 120)})` : '';
    throw new KitError('mp_login_failed', `the login code was refused${why}; log in again`);
  }
}
