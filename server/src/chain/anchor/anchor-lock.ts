/**
 * One anchorer at a time across instances. On PostgreSQL the anchoring instance holds a session
 * advisory lock on a connection of its own for as long as it runs: the others find it taken and
 * only report progress; when the holder dies its connection closes, the lock goes with it, and the
 * next instance to try takes over. SQLite serves one process, which is always the anchorer.
 */
import type pg from 'pg';

export interface AnchorLock {
  /** True while this instance is the anchorer (takes the lock when it is free). */
  hold(): Promise<boolean>;
  release(): Promise<void>;
}

export const soleAnchorer: AnchorLock = { hold: async () => true, release: async () => undefined };

export class PgAnchorLock implements AnchorLock {
  private client?: pg.PoolClient;
  private holding = false;

  constructor(private readonly pool: pg.Pool) {}

  async hold(): Promise<boolean> {
    try {
      if (this.holding && this.client) {
        // Still ours as long as the session lives.
        await this.client.query('select 1');
        return true;
      }
      this.client ??= await this.connect();
      const { rows } = await this.client.query<{ ok: boolean }>(`select pg_try_advisory_lock(hashtext(current_schema() || ':chain-anchor')) as ok`);
      this.holding = rows[0]?.ok === true;
      if (!this.holding) this.drop();
      return this.holding;
    } catch (err) {
      this.drop();
      throw err;
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    // A broken connection has lost the lock with it: forget it, the next tick connects again.
    client.on('error', () => this.drop(client));
    return client;
  }

  /** Closing the session (not returning it to the pool) releases every stacked lock of it at once. */
  private drop(client = this.client): void {
    if (!client) return;
    if (client === this.client) {
      this.client = undefined;
      this.holding = false;
    }
    try {
      client.release(true);
    } catch {
      // already released
    }
  }

  async release(): Promise<void> {
    this.drop();
  }
}
