/**
 * Replay refusal (docs/signing.md): a state-changing signature is accepted once inside its window. The
 * guard is a table on both backends, so that a refusal survives a restart (a signed order creation
 * replayed after a restart would otherwise be a second order) and holds across instances.
 */
import type { AppStore } from './app-store';

/** A state-changing request's signature for the replay guard: accepted once until `expiresAt`. */
export interface SpentSignature {
  appId: string;
  sig: string;
  expiresAt: number;
}

export interface ReplayGuard {
  /** True the first time (app, signature) is seen; remembered until `expiresAt`. */
  record(appId: string, sig: string, expiresAt: number): Promise<boolean>;
  /** Forgets one signature again. */
  forget(appId: string, sig: string): Promise<void>;
  purge(now: number): Promise<unknown>;
}

export class TableReplayGuard implements ReplayGuard {
  constructor(private readonly store: AppStore) {}
  record(appId: string, sig: string, expiresAt: number) {
    return this.store.recordSignature(appId, sig, expiresAt);
  }
  forget(appId: string, sig: string) {
    return this.store.forgetSignature(appId, sig);
  }
  purge(now: number) {
    return this.store.purgeSignatures(now);
  }
}
