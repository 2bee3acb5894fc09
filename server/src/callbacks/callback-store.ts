/** SQL of callback delivery attempts (the callbacks themselves are jobs of queue `callback`). */
import type { Insertable, Kysely } from 'kysely';
import type { CallbackAttemptsTable, Database } from '../db/schema';

export class CallbackStore {
  constructor(readonly db: Kysely<Database>) {}

  insertAttempt(row: Insertable<CallbackAttemptsTable>): Promise<unknown> {
    return this.db.insertInto('callback_attempts').values(row).execute();
  }

  attempts(jobId: number) {
    return this.db.selectFrom('callback_attempts').selectAll().where('job_id', '=', jobId).orderBy('attempt').execute();
  }
}
