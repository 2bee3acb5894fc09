/**
 * The platform's server API for the mini-program, as the sandbox plays it (docs/sandbox.md, "The
 * mini-program's server API"): `POST /sandbox/cgi-bin/stable_token` and `POST
 * /sandbox/wxa/getwxacodeunlimit`. Like the platform, every failure is `{errcode, errmsg}` with HTTP 200.
 *
 * Tokens live `SANDBOX_MP_TOKEN_TTL` (the platform's 2 hours). A normal call answers the current
 * token with what is left of it, and a new one in its last 5 minutes (the old one stays valid until
 * its end); a forced call (`force_refresh: true`) answers a new one at once and leaves the previous
 * ones 5 more minutes, at least 30 s after the last forced call and 20 times a day at most.
 */
import type { Clock } from '@kit/shared/clock';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Config } from '@kit/server/plugins/dev-plugin';
import type { SandboxFaults } from './sandbox-faults';
import type { SandboxMpStore } from './sandbox-mp-store';
import { sandboxCodePng } from './sandbox-mp-image';

/** The old token's grace after a forced refresh, and the part of a token's life in which a normal call gets the next one. */
export const TOKEN_OVERLAP_MS = 5 * 60_000;
const FORCE_SPACING_MS = 30_000;
const FORCES_PER_DAY = 20;
/** The pages of the kit's mini-program (`miniprogram/src/app.config.ts`): what `check_path` checks against. */
const RELEASED_PAGES = ['pages/pay/index'];
const SCENE_CHARACTERS = /^[0-9A-Za-z!#$&'()*+,/:;=?@\-._~]*$/;

type PlatformError = { errcode: number; errmsg: string };
const fail = (errcode: number, errmsg: string): PlatformError => ({ errcode, errmsg });

export class SandboxMiniProgram {
  constructor(
    private readonly store: SandboxMpStore,
    private readonly faults: SandboxFaults,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {}

  /** `POST /cgi-bin/stable_token`. */
  async stableToken(body: Record<string, unknown>): Promise<{ access_token: string; expires_in: number } | PlatformError> {
    if (body.grant_type !== 'client_credential') return fail(40002, 'invalid grant_type');
    if (typeof body.appid !== 'string' || body.appid !== this.config.MP_APPID) return fail(40013, 'invalid appid');
    if (typeof body.secret !== 'string' || body.secret !== this.config.MP_SECRET) return fail(40125, 'invalid appsecret');
    if (body.force_refresh !== undefined && typeof body.force_refresh !== 'boolean') return fail(40097, 'invalid args: force_refresh must be a boolean');
    const appid = body.appid;
    const now = this.clock.now();
    if (Math.random() < 0.01) void this.store.purge(now - 86_400_000).catch(() => undefined);
    if (body.force_refresh === true) {
      const forced = await this.store.forcedSince(appid, now - 86_400_000);
      if (forced.length >= FORCES_PER_DAY) return fail(45009, 'reach max api daily quota limit');
      if (forced[0] && now - forced[0].issued_at < FORCE_SPACING_MS) return fail(45011, 'api minute-quota reach limit  mustslower  retry next minute');
      return this.issue(appid, now, true);
    }
    const current = await this.store.newest(appid);
    if (current && !this.revoked(current.issued_at) && current.expires_at - now > TOKEN_OVERLAP_MS) {
      return { access_token: current.token, expires_in: Math.floor((current.expires_at - now) / 1000) };
    }
    return this.issue(appid, now, false);
  }

  /** `POST /wxa/getwxacodeunlimit?access_token=…`: a PNG, or the platform's error. */
  async unlimitedCode(
    accessToken: unknown,
    body: Record<string, unknown>,
    calledAt: { origin: string; basePath: string },
  ): Promise<{ png: Buffer } | PlatformError> {
    const refused = await this.checkToken(accessToken);
    if (refused) return refused;
    const { scene, page, check_path: checkPath = true, env_version: envVersion = 'release', width = 430 } = body;
    if (typeof scene !== 'string' || scene.length === 0 || scene.length > 32) return fail(40169, 'invalid length for scene, or the data is not json');
    if (!SCENE_CHARACTERS.test(scene)) return fail(40169, "invalid scene: only digits, letters and !#$&'()*+,/:;=?@-._~ are allowed");
    if (!['release', 'trial', 'develop'].includes(envVersion as string)) return fail(40097, 'invalid args: env_version');
    if (typeof checkPath !== 'boolean' || typeof width !== 'number') return fail(40097, 'invalid args');
    const pagePath = page === undefined ? RELEASED_PAGES[0] : page;
    if (typeof pagePath !== 'string' || pagePath.startsWith('/') || !/^[A-Za-z0-9_\-/]+$/.test(pagePath)) return fail(41030, 'invalid page rule');
    if (checkPath && !RELEASED_PAGES.includes(pagePath)) return fail(41030, 'invalid page rule: the page does not exist in the released version');
    const link = `${this.payerBase(calledAt)}/mp/#/${pagePath}?scene=${encodeURIComponent(scene)}`;
    return { png: sandboxCodePng(link, Math.min(1280, Math.max(280, Math.round(width)))) };
  }

  private async issue(appid: string, now: number, forced: boolean): Promise<{ access_token: string; expires_in: number }> {
    const token = `sbx_${randomBytes(24).toString('base64url')}`;
    const ttl = this.config.SANDBOX_MP_TOKEN_TTL;
    await this.store.issue({ token, appid, forced: forced ? 1 : 0, issued_at: now, expires_at: now + ttl }, forced ? now + TOKEN_OVERLAP_MS : undefined);
    return { access_token: token, expires_in: Math.floor(ttl / 1000) };
  }

  /** Why the platform would refuse this token, or null. */
  private async checkToken(token: unknown): Promise<PlatformError | null> {
    if (typeof token !== 'string' || !/^sbx_[A-Za-z0-9_-]{32}$/.test(token)) return fail(40014, 'invalid access_token');
    const row = await this.store.find(token);
    if (!row || this.revoked(row.issued_at)) return fail(40001, 'invalid credential, access_token is invalid or not latest');
    if (row.expires_at <= this.clock.now()) return fail(42001, 'access_token expired');
    return null;
  }

  /** The `mpTokens: "revoked"` fault: every token issued before it was set. */
  private revoked(issuedAt: number): boolean {
    const at = this.faults.mpTokensRevokedAt;
    return at !== undefined && issuedAt <= at;
  }

  /**
   * The service the code's link leads to: PUBLIC_URL when set, else the address the sandbox was called
   * at. A service listening on every interface calls its sandbox at 127.0.0.1, which a phone cannot
   * open: the machine's first network address then, on the same port.
   */
  private payerBase(calledAt: { origin: string; basePath: string }): string {
    if (this.config.PUBLIC_URL) return this.config.PUBLIC_URL.replace(/\/+$/, '');
    const url = new URL(calledAt.origin);
    const everywhere = this.config.HOST === '0.0.0.0' || this.config.HOST === '::';
    if (everywhere && /^(127\.|localhost$|\[::1\]$)/.test(url.hostname)) {
      const lan = Object.values(os.networkInterfaces())
        .flatMap((l) => l ?? [])
        .find((i) => i.family === 'IPv4' && !i.internal);
      if (lan) url.hostname = lan.address;
    }
    return `${url.origin}${calledAt.basePath}`;
  }
}
