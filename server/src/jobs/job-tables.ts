/** The job table (migration 0004_jobs): every piece of background work the service must not lose. */
import type { Generated } from 'kysely';

/**
 * A queue's name: its handler's `queue` (`JobHandler`), registered with its retry policy in
 * `jobs/registry.ts` (the sandbox's queues, named `sandbox.*`, in `sandbox/src/sandbox.ts`).
 */
export type QueueName = string;

/** `pending` until its handler ends it: `done`, or `failed` (given up; `result` and `last_error` say why). */
export type JobState = 'pending' | 'done' | 'failed';

export interface JobsTable {
  id: Generated<number>;
  queue: QueueName;
  /** De-duplication key within the queue (one callback per state change, one reconciliation per channel order); null for none. */
  key: string | null;
  /** What the job is about, for reading its history (a prepay id, a channel prepay id). */
  ref: string;
  /** Handler-specific JSON. */
  payload: string;
  state: JobState;
  /** How it ended, in the handler's words (`delivered`, `undeliverable`, `acked`, `paid`, …). */
  result: string | null;
  /** Runs so far. */
  attempts: number;
  /** When it is due; while claimed, when the claim (lease) runs out. */
  next_at: number;
  /** The claim of the worker running it; settling needs the same token, so a lost claim cannot overwrite. */
  lease_token: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  done_at: number | null;
}

export interface JobTables {
  jobs: JobsTable;
}
