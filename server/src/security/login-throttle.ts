/**
 * The brute-force limit of every login (4.16, the POS display's, the mini-program's code exchange,
 * the console's): failures are counted per account and per client address in the database, so
 * every instance sees the same counts. After `maxFailures` failures within the window a key is
 * refused with 429 `login_throttled` and `Retry-After` for `lockoutMs`; each further lockout in
 * the window is twice as long, up to `WINDOW_MS`. A success clears the account's count; the
 * address's count is left to expire, or an attacker could clear it with an account of his own
 * between guesses.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { KitError } from '@kit/shared';
import type { Metrics } from '../metrics/metrics';
import type { LoginThrottleStore } from './login-throttle-store';

/** Failures are counted over this window, and no lockout is longer. */
export const WINDOW_MS = 15 * 60_000;

export interface LoginThrottleOptions {
  maxFailures: number;
  /** The first lockout; each further one in the window doubles it. */
  lockoutMs: number;
}

/** Who is trying: an account (absent when a login has none, like a login code) and the client's address. */
export interface LoginAttempt {
  account?: string;
  address?: string;
}

/** The failures that count: wrong credentials, not a disabled merchant or an unreachable platform. */
const COUNTED = new Set(['login_failed', 'mp_login_failed']);

export class LoginThrottle {
  constructor(
    private readonly store: LoginThrottleStore,
    private readonly opts: LoginThrottleOptions,
    private readonly log: Logger,
    private readonly metrics: Pick<Metrics, 'loginOutcome'>,
    private readonly clock: Clock,
  ) {}

  /** Runs `login` unless a key is locked out; counts its failure or clears the account's count on success. */
  async guard<T>(who: LoginAttempt, login: () => Promise<T>, now = () => this.clock.now()): Promise<T> {
    const keys = keysOf(who);
    const until = keys.length ? await this.store.blockedUntil(keys) : 0;
    if (until > now()) {
      this.metrics.loginOutcome('throttled');
      throw throttled(until - now());
    }
    let result: T;
    try {
      result = await login();
    } catch (e) {
      if (e instanceof KitError && COUNTED.has(e.error)) {
        this.metrics.loginOutcome('failed');
        // This attempt was checked and failed: it answers as such; the next ones meet the lockout.
        await this.countFailure(keys, now());
      }
      throw e;
    }
    this.metrics.loginOutcome('succeeded');
    if (who.account) await this.store.clear(`account:${who.account}`);
    return result;
  }

  private async countFailure(keys: string[], at: number): Promise<void> {
    for (const key of keys) {
      const { failures, lockouts } = await this.store.addFailure(key, at, WINDOW_MS);
      // After a lockout in the window, the next failure locks again, for twice as long.
      if (failures < this.opts.maxFailures && lockouts === 0) continue;
      const ms = Math.min(this.opts.lockoutMs * 2 ** lockouts, WINDOW_MS);
      if (!(await this.store.block(key, at, at + ms))) continue;
      this.metrics.loginOutcome('locked');
      // The key names the account or address: what an operator needs to see an attack; never the password.
      this.log.warn({ key, failures, lockoutSeconds: Math.ceil(ms / 1000) }, 'login locked out after repeated failures');
    }
  }

  purge(now = this.clock.now()): Promise<void> {
    return this.store.purge(now, WINDOW_MS);
  }
}

function keysOf(who: LoginAttempt): string[] {
  const keys: string[] = [];
  if (who.account) keys.push(`account:${who.account}`);
  if (who.address) keys.push(`address:${normaliseAddress(who.address)}`);
  return keys;
}

/** `::ffff:203.0.113.5` and `203.0.113.5` are one client. */
function normaliseAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address.toLowerCase();
}

function throttled(ms: number): KitError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new KitError('login_throttled', `too many failed logins; try again in ${seconds} s`, { retryAfterSeconds: seconds });
}
