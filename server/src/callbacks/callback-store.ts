/** SQL of callback delivery attempts and of the callback operations (the callbacks themselves are jobs of queue `callback`). */
import { PostgresAdapter, sql, type Insertable, type Kysely } from 'kysely';
import type { CallbackAttemptsTable, Database } from '../db/schema';
import type { JobState } from '../jobs/job-tables';
import type { Alongside, JobStore } from '../jobs/job-store';
import { prepared } from '../db/prepared';
import type { Guard } from '../db/write-chain';

const ATTEMPT_COLUMNS = ['job_id', 'attempt', 'at', 'url', 'http_status', 'latency_ms', 'response_head', 'error'] as const satisfies ReadonlyArray<
  keyof CallbackAttemptsTable
>;

/**
 * Which callbacks a list is about: one order's, or those of some sub-merchants (a parent merchant's
 * are its sub-merchants': orders belong to sub-merchants, and their `(sub_merchant_id, create_time)`
 * index then finds them).
 */
export type CallbackScope = { prepayId: string } | { subMerchantIds: string[] };

export interface CallbackFilter {
  state?: JobState;
  /** Creation window `[since, until)`, epoch ms. */
  since?: number;
  until?: number;
  /** Only callbacks with a smaller id (the page before ended there). */
  before?: number;
}

/** A JSON object's text built by the database: `json_build_object` on PostgreSQL, `json_object` on SQLite. */
function jsonText(db: Kysely<Database>, fields: Record<string, unknown>) {
  const args = sql.join(Object.entries(fields).flatMap(([k, v]) => [sql.lit(k), v]));
  return db.getExecutor().adapter instanceof PostgresAdapter ? sql<string>`json_build_object(${args})::text` : sql<string>`json_object(${args})`;
}

/** The job queue callbacks are delivered through (`callback-delivery.ts`). */
export const CALLBACK_QUEUE = 'callback';

export class CallbackStore {
  // Every callback attempt writes one (prepared once: docs/performance.md).
  private readonly insertAttemptRow;

  constructor(
    readonly db: Kysely<Database>,
    private readonly jobs: JobStore,
  ) {
    this.insertAttemptRow = prepared(
      db,
      (...v: unknown[]) => db.insertInto('callback_attempts').values(Object.fromEntries(ATTEMPT_COLUMNS.map((c, i) => [c, v[i]])) as never),
      ATTEMPT_COLUMNS.length,
    );
  }

  /**
   * The callback of an order's state change, as `CallbackService.enqueue` writes it (job key
   * `<prepayId>:<status>`, the same payload), reading the order's merchants itself: a step of a
   * chain of writes (`db/write-chain.ts`), `guard` added on PostgreSQL. Nothing when it exists.
   */
  enqueueOfOrderQuery(guard: Guard, prepayId: string, status: string, channel: string, now: number) {
    const text = (v: unknown) => sql<string>`cast(${v} as text)`;
    const int = (v: unknown) => sql<number>`cast(${v} as bigint)`;
    // The fields of `CallbackEventInput`, in its order.
    const payload = jsonText(this.db, {
      prepayId: text(prepayId),
      status: sql.lit(status),
      subMerchantId: sql.ref('o.sub_merchant_id'),
      merchantId: sql.ref('o.merchant_id'),
      ownerAppId: sql.ref('m.app_id'),
      channel: text(channel),
    });
    return this.db
      .insertInto('jobs')
      .columns(['queue', 'key', 'ref', 'payload', 'state', 'attempts', 'next_at', 'created_at', 'updated_at'])
      .expression(
        this.db
          .selectFrom('prepay_orders as o')
          .innerJoin('merchants as m', 'm.id', 'o.sub_merchant_id')
          .select([
            sql.lit(CALLBACK_QUEUE).as('queue'),
            sql<string>`${text(prepayId)} || ${sql.lit(`:${status}`)}`.as('key'),
            text(prepayId).as('ref'),
            payload.as('payload'),
            sql.lit('pending').as('state'),
            sql.lit(0).as('attempts'),
            int(now).as('next_at'),
            int(now).as('created_at'),
            int(now).as('updated_at'),
          ])
          .where('o.prepay_id', '=', prepayId)
          .$if(guard !== undefined, (q) => q.where(guard!)),
      )
      .onConflict((oc) => oc.columns(['queue', 'key']).doNothing());
  }

  insertAttempt(row: Insertable<CallbackAttemptsTable>): Promise<unknown> {
    return this.insertAttemptRow(...ATTEMPT_COLUMNS.map((c) => row[c] ?? null));
  }

  /** An attempt for the job's settlement to write (`JobSettlement.alongside`: in its statement on PostgreSQL). */
  attempt(row: Insertable<CallbackAttemptsTable>): Alongside {
    return {
      into: { table: 'callback_attempts', columns: ATTEMPT_COLUMNS, values: ATTEMPT_COLUMNS.map((c) => row[c] ?? null) },
      // SQLite writes it with the prepared insert.
      write: () => this.insertAttempt(row),
    };
  }

  /** In the order they happened; a resent callback's series follow each other. */
  attempts(jobId: number) {
    return this.db.selectFrom('callback_attempts').selectAll().where('job_id', '=', jobId).orderBy('id').execute();
  }

  attemptsOf(jobIds: number[]) {
    if (!jobIds.length) return Promise.resolve([]);
    return this.db.selectFrom('callback_attempts').selectAll().where('job_id', 'in', jobIds).orderBy('id').execute();
  }

  /** A page of callbacks, newest first, with the order's merchants. */
  list(scope: CallbackScope, f: CallbackFilter, limit: number) {
    let q = this.db.selectFrom('jobs as j').innerJoin('prepay_orders as o', 'o.prepay_id', 'j.ref').where('j.queue', '=', CALLBACK_QUEUE);
    if ('prepayId' in scope) q = q.where('j.ref', '=', scope.prepayId);
    else if (!scope.subMerchantIds.length) return Promise.resolve([]);
    else q = q.where('o.sub_merchant_id', 'in', scope.subMerchantIds);
    if (f.state) q = q.where('j.state', '=', f.state);
    if (f.since !== undefined) q = q.where('j.created_at', '>=', f.since);
    if (f.until !== undefined) q = q.where('j.created_at', '<', f.until);
    if (f.before !== undefined) q = q.where('j.id', '<', f.before);
    return q
      .select(['j.id', 'j.ref', 'j.key', 'j.payload', 'j.state', 'j.result', 'j.next_at', 'j.created_at', 'o.sub_merchant_id', 'o.merchant_id'])
      .orderBy('j.id', 'desc')
      .limit(limit)
      .execute();
  }

  async subMerchantOf(prepayId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('prepay_orders').select('sub_merchant_id').where('prepay_id', '=', prepayId).executeTakeFirst();
    return row?.sub_merchant_id;
  }

  /** One callback with its order's merchants. */
  byId(id: number) {
    return this.db
      .selectFrom('jobs as j')
      .innerJoin('prepay_orders as o', 'o.prepay_id', 'j.ref')
      .select(['j.id', 'j.ref', 'j.state', 'j.next_at', 'o.sub_merchant_id', 'o.merchant_id'])
      .where('j.queue', '=', CALLBACK_QUEUE)
      .where('j.id', '=', id)
      .executeTakeFirst();
  }

  /** Starts a fresh series of attempts for a callback that ended before `askedAt` (`JobStore.rearmEnded`). */
  rearm(id: number, askedAt: number): Promise<boolean> {
    return this.jobs.rearmEnded(CALLBACK_QUEUE, id, askedAt);
  }

  /** Makes a pending callback's next attempt, read due at `seenNextAt`, due now, in its series (`JobStore.bringForward`). */
  bringForward(id: number, seenNextAt: number): Promise<boolean> {
    return this.jobs.bringForward(CALLBACK_QUEUE, id, seenNextAt);
  }

  /** Rearms every given-up callback of those sub-merchants created in the window, in one statement; how many. */
  async rearmGivenUp(subMerchantIds: string[], since: number, until: number, now = this.jobs.clock.now()): Promise<number> {
    if (!subMerchantIds.length) return 0;
    return this.jobs.rearmGivenUp(
      CALLBACK_QUEUE,
      since,
      until,
      (eb) => eb.selectFrom('prepay_orders').select('prepay_id as ref').where('sub_merchant_id', 'in', subMerchantIds),
      now,
    );
  }
}
