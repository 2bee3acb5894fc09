/**
 * Replay refusal (DESIGN 2.1): a state-changing signature is accepted once inside its window.
 * On PostgreSQL several instances share the guard through a table. SQLite serves one process, so
 * the guard lives in memory there and keeps a write off every signed request.
 */
import type { AppStore } from './app-store';

export interface ReplayGuard {
  /** True the first time (app, signature) is seen; remembered until `expiresAt`. */
  /** A boolean when it can answer at once (memory), a promise when it has to ask the database. */
  record(appId: string, sig: string, expiresAt: number): boolean | Promise<boolean>;
  purge(now: number): Promise<unknown>;
}

export class TableReplayGuard implements ReplayGuard {
  constructor(private readonly store: AppStore) {}
  record(appId: string, sig: string, expiresAt: number) {
    return this.store.recordSignature(appId, sig, expiresAt);
  }
  purge(now: number) {
    return this.store.purgeSignatures(now);
  }
}

export class MemoryReplayGuard implements ReplayGuard {
  private readonly seen = new Map<string, number>();
  record(appId: string, sig: string, expiresAt: number) {
    const key = `${appId} ${sig}`;
    const until = this.seen.get(key);
    if (until !== undefined && until >= Date.now()) return false;
    this.seen.set(key, expiresAt);
    return true;
  }
  async purge(now: number) {
    for (const [k, until] of this.seen) if (until < now) this.seen.delete(k);
  }
}
