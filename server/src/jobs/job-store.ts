/**
 * SQL of the job table. Jobs are rows with a due time, a run count and a lease (pg-boss style):
 * a worker claims due rows by pushing their due time past the lease and stamping its token, so a
 * worker that dies gives its jobs back when the lease ends; on PostgreSQL `FOR UPDATE SKIP LOCKED`
 * keeps instances off each other's rows.
 */
import type { Clock } from '@kit/shared/clock';
import { sql, type ExpressionBuilder, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database, Executor } from '../db/schema';
import type { Dialect } from '../db/dialect';
import type { JobState, JobsTable, QueueName } from './job-tables';
import { preparedOn } from '../db/prepared';
import { batchedWrite } from '../db/batched-write';
import type { Guard } from '../db/write-chain';

export type JobRow = Selectable<JobsTable>;

export interface NewJob {
  queue: QueueName;
  key?: string | null;
  ref: string;
  payload?: object;
  /** When it is first due (default: now). */
  at?: number;
}

/**
 * How a run ended: finished, given up, or to be run again at `nextAt`; `alongside`, a row the
 * handler records with it (a callback's attempt), written by the same statement on PostgreSQL.
 */
export type JobSettlement = (
  | { state: 'done'; result?: string | null }
  | { state: 'failed'; result?: string | null; error?: string | null }
  | { state: 'pending'; nextAt: number; error?: string | null; payload?: object }
) & { alongside?: Alongside };

/**
 * A row a handler records with the end of its run: written by the settling statement on PostgreSQL
 * (a data-modifying WITH) and alone on SQLite (`write`). Given as its table, columns and values, so
 * that the usual settlement (done) runs as one prepared statement per table and columns.
 */
export interface Alongside {
  into: { table: AlongsideTable; columns: readonly string[]; values: readonly unknown[] };
  write(): Promise<unknown>;
}

/** Tables a settlement may write a row to. */
export type AlongsideTable = 'callback_attempts';

/** The ids a batch of done runs updated (`settleDoneMany`). */
type Updated = { id: number | string };

/** A run that ended done, as `settle` records it. */
interface DoneRun {
  id: number;
  token: string;
  attempts: number;
  result: string | null;
  now: number;
  alongside?: Alongside;
}

const ENQUEUE_COLUMNS = [
  'queue',
  'key',
  'ref',
  'payload',
  'state',
  'result',
  'attempts',
  'next_at',
  'lease_token',
  'last_error',
  'created_at',
  'updated_at',
  'done_at',
] as const satisfies ReadonlyArray<keyof JobsTable>;

export class JobStore {
  // The statements every job goes through (a callback per payment) are prepared once (docs/performance.md).
  private readonly enqueueOnceRow;
  private readonly claimRows;
  private readonly settleDoneRow;
  private readonly finishRow;
  /** `settleDoneRow` with a row alongside, by table and columns (a handful: one per kind of row). */
  private readonly settleDoneAlongside = new Map<string, ReturnType<JobStore['prepareSettleDoneAlongside']>>();
  /** The done settlements of a turn, sent together (`settleDoneMany`), by kind of row alongside (`''`: none). */
  private readonly doneBatches = new Map<string, (run: DoneRun) => Promise<boolean>>();

  constructor(
    readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    readonly clock: Clock,
  ) {
    this.enqueueOnceRow = preparedOn(
      db,
      (...v: unknown[]) =>
        db
          .insertInto('jobs')
          .values(Object.fromEntries(ENQUEUE_COLUMNS.map((c, i) => [c, v[i]])) as never)
          .onConflict((oc) => oc.columns(['queue', 'key']).doNothing()),
      ENQUEUE_COLUMNS.length,
    );
    this.claimRows = preparedOn(
      db,
      (queue: QueueName, now: number, limit: number, leaseUntil: number, token: string) => this.claimQuery(queue, now, limit, leaseUntil, token),
      5,
    );
    this.settleDoneRow = preparedOn(
      db,
      (id: number, token: string, attempts: number, result: string | null, now: number) => this.settleDoneQuery(id, token, attempts, result, now),
      5,
    );
    this.finishRow = preparedOn(db, (queue: QueueName, key: string, result: string, now: number) => this.finishQuery(undefined, queue, key, result, now), 4);
  }

  /**
   * Adds a job on the caller's executor (so it commits with the change that needs it). With a key
   * already in the queue, `once` keeps the existing job (false is returned) and `rearm` makes it
   * pending again, due at `at`, with its run count reset (and `payload`, when given, as its payload).
   */
  async enqueue(on: Executor, job: NewJob, mode: 'once' | 'rearm' = 'once', now = this.clock.now()): Promise<boolean> {
    const row = {
      queue: job.queue,
      key: job.key ?? null,
      ref: job.ref,
      payload: JSON.stringify(job.payload ?? {}),
      state: 'pending' as const,
      result: null,
      attempts: 0,
      next_at: job.at ?? now,
      lease_token: null,
      last_error: null,
      created_at: now,
      updated_at: now,
      done_at: null,
    };
    if (mode === 'once') return Number((await this.enqueueOnceRow(on, ...ENQUEUE_COLUMNS.map((c) => row[c]))).numAffectedRows ?? 0n) === 1;
    const res = await on
      .insertInto('jobs')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['queue', 'key']).doUpdateSet({
          state: 'pending',
          result: null,
          attempts: 0,
          next_at: row.next_at,
          lease_token: null,
          updated_at: now,
          done_at: null,
          ...(job.payload !== undefined ? { payload: row.payload } : {}),
        }),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Claims up to `limit` due jobs of a queue until `leaseUntil`. */
  async claim(queue: QueueName, now: number, limit: number, leaseUntil: number, token: string): Promise<JobRow[]> {
    return (await this.claimRows(this.db, queue, now, limit, leaseUntil, token)).rows;
  }

  private claimQuery(queue: QueueName, now: number, limit: number, leaseUntil: number, token: string) {
    return this.db
      .updateTable('jobs')
      .set({ next_at: leaseUntil, lease_token: token })
      .where('id', 'in', (eb) => {
        // The state as a literal, not a parameter: SQLite only uses a partial index (`jobs_due`) when
        // the query's condition visibly implies the index's.
        let q = eb
          .selectFrom('jobs')
          .select('id')
          .where('queue', '=', queue)
          .where('state', '=', sql.lit('pending'))
          .where('next_at', '<=', now)
          .orderBy('next_at')
          .limit(limit);
        if (this.dialect === 'postgres') q = q.forUpdate().skipLocked();
        return q;
      })
      .returningAll();
  }

  /**
   * Records the end of a claimed run; ignored (false) when the claim was lost meanwhile. The usual
   * end (done) goes with the other runs that ended in the same turn, in one statement (a rush's
   * callbacks: `settleDoneMany`).
   */
  async settle(id: number, token: string, attempts: number, s: JobSettlement, now = this.clock.now()): Promise<boolean> {
    if (s.state === 'done') return this.doneBatch(s.alongside)({ id, token, attempts, result: s.result ?? null, now, alongside: s.alongside });
    if (s.alongside && this.dialect === 'postgres') {
      // One round trip: the handler's row in a data-modifying WITH of the settling update (issue 34).
      const { into } = s.alongside;
      const res =
        await sql`with alongside as (${this.alongsideQuery(into.table, into.columns, into.values)}) ${this.settleQuery(id, token, attempts, s, now)}`.execute(
          this.db,
        );
      return Number(res.numAffectedRows) === 1;
    }
    if (s.alongside) await s.alongside.write();
    const res = await this.settleQuery(id, token, attempts, s, now).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  private doneBatch(alongside: Alongside | undefined): (run: DoneRun) => Promise<boolean> {
    const key = alongside ? `${alongside.into.table}(${alongside.into.columns.join(',')})` : '';
    let batch = this.doneBatches.get(key);
    if (!batch) {
      const many = this.settleDoneMany(alongside?.into);
      this.doneBatches.set(key, (batch = batchedWrite((run: DoneRun) => this.settleDoneOne(run), many)));
    }
    return batch;
  }

  /**
   * One done run: with its row alongside in a data-modifying WITH of the settling update on
   * PostgreSQL (one round trip, issue 34), both as prepared statements, which PostgreSQL parses and
   * plans once; on SQLite the row, then the update.
   */
  private async settleDoneOne(r: DoneRun): Promise<boolean> {
    if (r.alongside && this.dialect === 'postgres') {
      const { into } = r.alongside;
      return Number((await this.settleDoneWith(into)(this.db, r.id, r.token, r.attempts, r.result, r.now, ...into.values)).numAffectedRows) === 1;
    }
    if (r.alongside) await r.alongside.write();
    return Number((await this.settleDoneRow(this.db, r.id, r.token, r.attempts, r.result, r.now)).numAffectedRows) === 1;
  }

  /**
   * Done runs ended in the same turn, each with its row alongside (`into`'s kind) or none: on
   * PostgreSQL one prepared statement whatever their number (the ends and the rows as JSON arrays,
   * the rows inserted by a data-modifying WITH); on SQLite the rows in one statement and the updates
   * in another, in one transaction so that a batch that fails has written nothing (each of its runs
   * is then recorded alone: `batchedWrite`). Which runs still held their claim: the ids it updated.
   */
  private settleDoneMany(into: Alongside['into'] | undefined): (runs: DoneRun[]) => Promise<boolean[]> {
    const db = this.db;
    const columns = into?.columns ?? [];
    const cols = sql.join(columns.map((c) => sql.ref(c)));
    const ends = (runs: DoneRun[]) => JSON.stringify(runs.map((r) => ({ id: r.id, token: r.token, attempts: r.attempts, result: r.result, ended_at: r.now })));
    const rows = (runs: DoneRun[]) => JSON.stringify(runs.map((r) => Object.fromEntries(columns.map((c, i) => [c, r.alongside!.into.values[i]]))));
    const held = (runs: DoneRun[], updated: Updated[]) => {
      const ids = new Set(updated.map((u) => Number(u.id)));
      return runs.map((r) => ids.has(r.id));
    };
    const set = sql`"state" = 'done', "result" = "e"."result", "last_error" = null, "done_at" = "e"."ended_at", "attempts" = "e"."attempts", "lease_token" = null, "updated_at" = "e"."ended_at"`;
    if (this.dialect === 'postgres') {
      const update = (endsJson: unknown) =>
        sql<Updated>`update "jobs" as "j" set ${set}
          from json_to_recordset(cast(${endsJson} as json)) as "e"("id" bigint, "token" text, "attempts" integer, "result" text, "ended_at" bigint)
          where "j"."id" = "e"."id" and "j"."lease_token" = "e"."token" returning "j"."id"`;
      if (!into) {
        const endsOnly = preparedOn(db, (endsJson: string) => ({ compile: () => update(endsJson).compile(db) }), 1);
        return async (runs) => held(runs, (await endsOnly(db, ends(runs))).rows);
      }
      const table = sql.table(into.table);
      const inserted = (rowsJson: unknown) =>
        sql`insert into ${table} (${cols}) select ${cols} from json_populate_recordset(null::${table}, cast(${rowsJson} as json))`;
      const withRows = preparedOn(
        db,
        (endsJson: string, rowsJson: string) => ({ compile: () => sql<Updated>`with alongside as (${inserted(rowsJson)}) ${update(endsJson)}`.compile(db) }),
        2,
      );
      return async (runs) => held(runs, (await withRows(db, ends(runs), rows(runs))).rows);
    }
    const update = (endsJson: unknown) =>
      sql<Updated>`update "jobs" set ${set}
        from (select value ->> 'id' as "id", value ->> 'token' as "token", value ->> 'attempts' as "attempts", value ->> 'result' as "result", value ->> 'ended_at' as "ended_at" from json_each(${endsJson})) as "e"
        where "jobs"."id" = "e"."id" and "jobs"."lease_token" = "e"."token" returning "jobs"."id"`;
    const updateRows = preparedOn(db, (endsJson: string) => ({ compile: () => update(endsJson).compile(db) }), 1);
    if (!into) return async (runs) => held(runs, (await updateRows(db, ends(runs))).rows);
    const fields = sql.join(columns.map((c) => sql`value ->> ${sql.lit(c)}`));
    const insertRows = preparedOn(
      db,
      (rowsJson: string) => ({ compile: () => sql`insert into ${sql.table(into.table)} (${cols}) select ${fields} from json_each(${rowsJson})`.compile(db) }),
      1,
    );
    return (runs) =>
      db.transaction().execute(async (trx) => {
        await insertRows(trx, rows(runs));
        return held(runs, (await updateRows(trx, ends(runs))).rows);
      });
  }

  private settleDoneWith(into: Alongside['into']) {
    const key = `${into.table}(${into.columns.join(',')})`;
    let run = this.settleDoneAlongside.get(key);
    if (!run) this.settleDoneAlongside.set(key, (run = this.prepareSettleDoneAlongside(into.table, into.columns)));
    return run;
  }

  private prepareSettleDoneAlongside(table: AlongsideTable, columns: readonly string[]) {
    const db = this.db;
    return preparedOn(
      db,
      (id: number, token: string, attempts: number, result: string | null, now: number, ...values: unknown[]) => ({
        compile: () =>
          sql`with alongside as (${this.alongsideQuery(table, columns, values)}) ${this.settleDoneQuery(id, token, attempts, result, now)}`.compile(db),
      }),
      5 + columns.length,
    );
  }

  private alongsideQuery(table: AlongsideTable, columns: readonly string[], values: readonly unknown[]) {
    return this.db.insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, values[i]])) as never);
  }

  private settleDoneQuery(id: number, token: string, attempts: number, result: string | null, now: number) {
    return this.db
      .updateTable('jobs')
      .set({ state: 'done', result, last_error: null, done_at: now, attempts, lease_token: null, updated_at: now })
      .where('id', '=', id)
      .where('lease_token', '=', token);
  }

  private settleQuery(id: number, token: string, attempts: number, s: JobSettlement, now: number) {
    const patch =
      s.state === 'done'
        ? { state: s.state, result: s.result ?? null, last_error: null, done_at: now }
        : s.state === 'pending'
          ? { state: s.state, next_at: s.nextAt, last_error: s.error ?? null, ...(s.payload ? { payload: JSON.stringify(s.payload) } : {}) }
          : { state: s.state, result: s.result ?? null, last_error: s.error ?? null, done_at: now };
    return this.db
      .updateTable('jobs')
      .set({ ...patch, attempts, lease_token: null, updated_at: now })
      .where('id', '=', id)
      .where('lease_token', '=', token);
  }

  /**
   * Ends a job without running it, on the caller's executor: the work it would do has been done
   * another way (a notification recorded the payment its query was waiting for).
   */
  async finish(on: Executor, queue: QueueName, key: string, result: string, now = this.clock.now()): Promise<boolean> {
    return Number((await this.finishRow(on, queue, key, result, now)).numAffectedRows) === 1;
  }

  /** `enqueue` (`once`) as a query, `guard` added on PostgreSQL (a step of a chain: `db/write-chain.ts`). Nothing when the key exists. */
  enqueueQuery(guard: Guard, job: { queue: QueueName; key: string; ref: string; at: number }, now: number) {
    const text = (v: string) => sql<string>`cast(${v} as text)`;
    const int = (v: number) => sql<number>`cast(${v} as bigint)`;
    return this.db
      .insertInto('jobs')
      .columns(['queue', 'key', 'ref', 'payload', 'state', 'attempts', 'next_at', 'created_at', 'updated_at'])
      .expression(
        this.db
          .selectNoFrom([
            text(job.queue).as('queue'),
            text(job.key).as('key'),
            text(job.ref).as('ref'),
            sql.lit('{}').as('payload'),
            sql.lit('pending').as('state'),
            sql.lit(0).as('attempts'),
            int(job.at).as('next_at'),
            int(now).as('created_at'),
            int(now).as('updated_at'),
          ])
          .$if(guard !== undefined, (q) => q.where(guard!)),
      )
      .onConflict((oc) => oc.columns(['queue', 'key']).doNothing());
  }

  /** `finish` as a query, `guard` added on PostgreSQL (a step of a chain: `db/write-chain.ts`). */
  finishQuery(guard: Guard, queue: QueueName, key: string, result: string, now: number) {
    return this.db
      .updateTable('jobs')
      .set({ state: 'done', result, lease_token: null, updated_at: now, done_at: now })
      .where('queue', '=', queue)
      .where('key', '=', key)
      .where('state', '=', 'pending')
      .$if(guard !== undefined, (q) => q.where(guard!));
  }

  /**
   * Starts a fresh series of runs, due now, for a job that ended (done or given up) before
   * `askedAt`, the moment the caller was asked. One conditional update, so racing rearms start one
   * series on any instance: a pending job (or one being run, under a worker's lease) is left alone,
   * and a job whose latest series ended at or after `askedAt` was rearmed and run by a racing ask
   * already (its `done_at` moved), which this ask is satisfied by. The worker's lease token is gone
   * once it settled, so no earlier run can overwrite the new series.
   */
  async rearmEnded(queue: QueueName, id: number, askedAt = this.clock.now()): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set(freshSeries(this.clock.now()))
      .where('id', '=', id)
      .where('queue', '=', queue)
      .where('state', '!=', 'pending')
      .where('done_at', '<', askedAt)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Makes a pending job waiting for its next run due now, within its series (attempts go on); one
   * being run (under a lease) or already due is left alone. Whether this changed anything.
   * `seenNextAt` is when the caller read it due (compare and set): of calls racing each other, only
   * one changes it, whichever read the time first (a later `now` alone would not tell them apart:
   * a call that read the time before another's write may run its statement after it).
   */
  async bringForward(queue: QueueName, id: number, seenNextAt: number, now = this.clock.now()): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ next_at: now, updated_at: now })
      .where('id', '=', id)
      .where('queue', '=', queue)
      .where('state', '=', 'pending')
      .where('lease_token', 'is', null)
      .where('next_at', '=', seenNextAt)
      .where('next_at', '>', now)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Like `rearmEnded`, for the job of a key, due at `at`: a pending one (or one being run) is left alone. */
  async rearmEndedKey(queue: QueueName, key: string, at: number, now = this.clock.now()): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ ...freshSeries(now), next_at: at })
      .where('queue', '=', queue)
      .where('key', '=', key)
      .where('state', '!=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * Rearms, in one statement, every given-up job of a queue created in `[since, until)` whose `ref`
   * is among `refs` (a subquery of the caller's feature); how many.
   */
  async rearmGivenUp(queue: QueueName, since: number, until: number, refs: RefSubquery, now = this.clock.now()): Promise<number> {
    const res = await this.db
      .updateTable('jobs')
      .set(freshSeries(now))
      .where('queue', '=', queue)
      .where('state', '=', 'failed')
      .where('created_at', '>=', since)
      .where('created_at', '<', until)
      .where('ref', 'in', refs)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Deletes up to `limit` jobs of a queue that ended (done or given up) before `endedBefore`; how
   * many. The retention of each queue is in `jobs/registry.ts`.
   */
  async purgeEnded(queue: QueueName, endedBefore: number, limit: number): Promise<number> {
    const res = await this.db
      .deleteFrom('jobs')
      .where('id', 'in', (eb) =>
        eb.selectFrom('jobs').select('id').where('queue', '=', queue).where('state', '!=', sql.lit('pending')).where('done_at', '<', endedBefore).limit(limit),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  byRef(queue: QueueName, ref: string): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('ref', '=', ref).where('queue', '=', queue).orderBy('id').execute();
  }

  /** Pending jobs of a queue (due or not): a health figure for operators and metrics. */
  async depth(queue: QueueName): Promise<number> {
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('queue', '=', queue)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}

/** The row of a job that starts over: pending, due now, no run yet. */
const freshSeries = (now: number) =>
  ({ state: 'pending', result: null, attempts: 0, next_at: now, lease_token: null, last_error: null, done_at: null, updated_at: now }) as const;

/** A subquery selecting `ref` values (`jobs.ref`), built by the feature that knows what they are. */
export type RefSubquery = (eb: ExpressionBuilder<Database, 'jobs'>) => SelectQueryBuilder<Database, keyof Database, { ref: string }>;

export type { JobState };
