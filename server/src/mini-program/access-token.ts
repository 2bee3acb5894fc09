/**
 * The deployment's one mini-program access token (docs/operations.md, "The mini-program access
 * token"). Every instance reads it from the database; the one that takes the refresh lease calls
 * `stable_token`, the others keep using the token while it is still valid, or wait for the new one.
 *
 * A token the platform refused as invalid (40001, 42001, 40014) is replaced once: if another
 * instance stored a new one since, that one; otherwise one forced refresh (`force_refresh: true`),
 * which invalidates the old token for everybody, so it is never done twice for the same token, and
 * never within 30 s of the last one (the platform refuses them; a normal refresh then gets the
 * platform's current token).
 */
import type { Clock } from '@kit/shared/clock';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { KitError } from '@kit/shared';
import { open, seal } from '../security/secret-box';
import type { Metrics } from '../metrics/metrics';
import type { MpPlatform } from './mp-platform';
import type { MpTokenStore } from './mp-token-store';
import type { MpAccessTokensTable } from './mp-tables';

/** The answers that mean "this access token is not (or no longer) valid". */
export const INVALID_TOKEN_ERRCODES: ReadonlySet<number> = new Set([40001, 42001, 40014]);
/** A token is refreshed when less than this is left of it (the platform's own overlap of old and new tokens). */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** The platform accepts forced refreshes at least this far apart (and about 20 a day). */
export const FORCE_SPACING_MS = 30_000;
/** Below this much validity a token is not handed out any more: the call it is for must still reach the platform. */
const LAST_USE_MS = 10_000;
const POLL_MS = 100;

interface Held {
  token: string;
  expiresAt: number;
  fetchedAt: number;
  forcedAt: number;
}

export interface AccessTokenOptions {
  appId: string;
  /** One call to the platform at most; the lease lasts a little longer. */
  timeoutMs: number;
  /** The service's clock: the token's lifetime and the lease. */
  clock: Clock;
}

export class MpAccessToken {
  /** This instance, as the lease names it. */
  private readonly owner = randomBytes(9).toString('base64url');
  private ensured?: Promise<void>;

  constructor(
    private readonly store: MpTokenStore,
    private readonly platform: MpPlatform,
    private readonly masterKey: Buffer,
    private readonly opts: AccessTokenOptions,
    private readonly metrics: Metrics,
    private readonly log: Logger,
  ) {}

  private now(): number {
    return this.opts.clock.now();
  }

  /** A token to call the platform with. */
  current(): Promise<string> {
    return this.obtain(null);
  }

  /** The token to retry with after the platform refused `bad` as invalid. */
  replace(bad: string): Promise<string> {
    return this.obtain(bad);
  }

  private async obtain(bad: string | null): Promise<string> {
    const appid = this.opts.appId;
    this.ensured ??= this.store.ensure(appid).catch((e: unknown) => {
      this.ensured = undefined;
      throw e;
    });
    await this.ensured;
    const leaseMs = this.opts.timeoutMs + 5_000;
    const deadline = this.now() + leaseMs + this.opts.timeoutMs;
    for (;;) {
      const held = this.held(await this.store.read(appid));
      if (held && this.good(held, bad)) return held.token;
      if (await this.store.takeLease(appid, this.owner, this.now(), leaseMs)) return this.refresh(bad);
      // Someone else refreshes: a token that still works is used meanwhile, else wait for theirs.
      if (held && held.token !== bad && held.expiresAt - this.now() > LAST_USE_MS) return held.token;
      if (this.now() >= deadline) throw new KitError('mp_code_unavailable', 'another instance is refreshing the access token and has not finished');
      // A look again at the other instance's progress, on the machine's timer (the deadline above is the clock's).
      // eslint-disable-next-line no-restricted-syntax -- a look again at another instance's progress; its deadline is the clock's
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Whether a stored token can be used without refreshing. */
  private good(held: Held, bad: string | null): boolean {
    const now = this.now();
    if (bad !== null) return held.token !== bad && held.expiresAt - now > LAST_USE_MS;
    if (held.expiresAt - now > REFRESH_MARGIN_MS) return true;
    // A token the platform gave with less than the margin left from the start is its current one: asking again
    // within a minute would get it again.
    const shortFromStart = held.expiresAt - held.fetchedAt <= REFRESH_MARGIN_MS;
    return shortFromStart && now - held.fetchedAt < 60_000 && held.expiresAt - now > LAST_USE_MS;
  }

  /** With the lease held: look once more (another instance may have saved just before), then call `stable_token`. */
  private async refresh(bad: string | null): Promise<string> {
    const appid = this.opts.appId;
    let forced = false;
    try {
      const held = this.held(await this.store.read(appid));
      if (held && this.good(held, bad)) {
        await this.store.release(appid, this.owner);
        return held.token;
      }
      // Forced only for the very token that failed, and not within 30 s of the last forced refresh.
      forced = bad !== null && held?.token === bad && this.now() - held.forcedAt >= FORCE_SPACING_MS;
      const started = this.now();
      const { accessToken, expiresIn } = await this.platform.stableToken(forced);
      this.metrics.mpTokenRefresh(forced ? 'forced' : 'normal');
      const saved = await this.store.save(appid, this.owner, {
        token_enc: seal(this.masterKey, accessToken, aad(appid)),
        expires_at: started + expiresIn * 1000,
        fetched_at: started,
        forced,
      });
      if (!saved) this.log.warn('the access token lease ran out before the new token was saved; it is used all the same');
      this.log.info({ forced, expiresIn }, 'mini-program access token refreshed');
      return accessToken;
    } catch (e) {
      // A forced call the platform received counts for the 30 s spacing even when it failed.
      await this.store.release(appid, this.owner, forced ? this.now() : undefined).catch(() => undefined);
      throw e;
    }
  }

  private held(row: MpAccessTokensTable | undefined): Held | null {
    if (!row?.token_enc) return null;
    let token: string;
    try {
      token = open(this.masterKey, row.token_enc, aad(row.appid));
    } catch {
      // Sealed under another master key (KIT_MASTER_KEY changed): as if there were none.
      return null;
    }
    return { token, expiresAt: Number(row.expires_at), fetchedAt: Number(row.fetched_at), forcedAt: Number(row.forced_at) };
  }
}

const aad = (appid: string) => `mp-access-token:${appid}`;
