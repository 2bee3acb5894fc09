/**
 * Group commit for accepted uploads. Calls that arrive while a transaction is being written wait and
 * are then written together in the next one, each inside its own savepoint: one call's refusal
 * (an id conflict) rolls back that call only. Every call still answers only after the transaction
 * holding its rows has committed. Fewer, larger commits are what lets one SQLite file (or one
 * PostgreSQL WAL flush) take tens of thousands of items per second.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { isUniqueViolation } from '../db/errors';

export type WriteJob = (trx: Transaction<Database>) => Promise<void>;

interface Pending {
  job: WriteJob;
  attempts: number;
  resolve(): void;
  reject(e: unknown): void;
}

/** Most calls in one transaction (50 items each at most). */
const MAX_BATCH = 64;
/** Tries of a call that lost a race on a unique key (it then sees the winner's row) or a deadlock. */
const MAX_ATTEMPTS = 3;

/** Worth another try: a unique key taken meanwhile, or PostgreSQL's deadlock / serialization refusals. */
function retryable(e: unknown): boolean {
  const code = (e as { code?: string })?.code;
  return isUniqueViolation(e) || code === '40P01' || code === '40001';
}

export class WriteBatcher {
  private readonly queue: Pending[] = [];
  private running = false;

  constructor(private readonly db: Kysely<Database>) {}

  /** Runs `job` in a transaction (shared with other calls) and resolves once that has committed. */
  run(job: WriteJob): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, attempts: 0, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) await this.writeBatch(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.running = false;
    }
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    const outcome = new Map<Pending, unknown>();
    try {
      await this.db.transaction().execute(async (trx) => {
        if (batch.length === 1) return batch[0].job(trx);
        for (const p of batch) {
          await sql`savepoint kit_call`.execute(trx);
          try {
            await p.job(trx);
          } catch (e) {
            outcome.set(p, e);
            await sql`rollback to savepoint kit_call`.execute(trx);
          }
          await sql`release savepoint kit_call`.execute(trx);
        }
      });
    } catch (e) {
      // The transaction as a whole failed (for a single call: that call's own failure).
      for (const p of batch) if (!outcome.has(p)) outcome.set(p, e);
    }
    for (const p of batch) {
      const e = outcome.get(p);
      if (e === undefined) p.resolve();
      else if (retryable(e) && ++p.attempts < MAX_ATTEMPTS) this.queue.push(p);
      else p.reject(e);
    }
  }
}
