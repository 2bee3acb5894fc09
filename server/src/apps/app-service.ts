/**
 * Apps and their secrets (docs/operations.md, keys). Secrets are stored sealed under the master key and kept
 * decrypted in memory for a short while so that signature checks stay off the database.
 */
import type { Clock } from '@kit/shared/clock';
import { KitError } from '@kit/shared';
import { randomAlnum, randomToken } from '../security/ids';
import { open, seal } from '../security/secret-box';
import type { AppStore } from './app-store';
import type { ReplayGuard } from './replay-guard';

const CACHE_MS = 30_000;

export interface AppCredentials {
  appId: string;
  appSecret: string;
}

export class AppService {
  private readonly cache = new Map<string, { secret: string | null; until: number }>();

  constructor(
    private readonly store: AppStore,
    private readonly masterKey: Buffer,
    private readonly replay: ReplayGuard,
    private readonly clock: Clock,
  ) {}

  async create(name?: string): Promise<AppCredentials> {
    const appId = `app_${randomAlnum(16).toLowerCase()}`;
    const appSecret = randomToken();
    await this.store.insert({
      app_id: appId,
      secret_enc: seal(this.masterKey, appSecret, appId),
      name: name ?? null,
      disabled: 0,
      created_at: this.clock.now(),
    });
    return { appId, appSecret };
  }

  /** The secret from the cache without waiting: undefined when it has to be read. */
  cachedSecret(appId: string): string | null | undefined {
    const hit = this.cache.get(appId);
    return hit && hit.until > this.clock.now() ? hit.secret : undefined;
  }

  /** The secret of an enabled app, or null. Cached briefly (disabling takes effect within 30 s). */
  async secretOf(appId: string): Promise<string | null> {
    const now = this.clock.now();
    const hit = this.cache.get(appId);
    if (hit && hit.until > now) return hit.secret;
    const row = await this.store.find(appId);
    const secret = row && !row.disabled ? open(this.masterKey, row.secret_enc, appId) : null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(appId, { secret, until: now + (secret ? CACHE_MS : 2_000) });
    return secret;
  }

  async requireExisting(appId: string): Promise<void> {
    if (!(await this.store.find(appId))) throw new KitError('unknown_app', `app "${appId}" does not exist`);
  }

  list() {
    return this.store.list();
  }

  async setDisabled(appId: string, disabled: boolean): Promise<void> {
    await this.requireExisting(appId);
    await this.store.setDisabled(appId, disabled);
    this.cache.delete(appId);
  }

  /** Replay refusal: true the first time a signature is seen inside its window. */
  recordSignature(appId: string, sig: string, expiresAt: number): Promise<boolean> {
    return this.replay.record(appId, sig, expiresAt);
  }

  /** Gives a signature back (its request was refused for its shape and changed nothing). */
  forgetSignature(appId: string, sig: string): Promise<void> {
    return this.replay.forget(appId, sig);
  }

  purgeSignatures(now = this.clock.now()): Promise<unknown> {
    return this.replay.purge(now);
  }
}
