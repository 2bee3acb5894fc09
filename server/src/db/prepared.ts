/**
 * Hot queries built once. Kysely rebuilds and recompiles a query on every call, which costs as much
 * as running it on SQLite. A prepared query is compiled once with placeholder arguments; each call
 * only swaps the arguments into the compiled parameter list and goes straight to a connection.
 * What it saves is in docs/performance.md, "What the speed tricks buy". A Kysely instance with plugins gets the
 * ordinary path, so a plugin added later is never skipped.
 */
import { createHash } from 'node:crypto';
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema';

/**
 * The SQL texts of the prepared queries, with their statement names: on PostgreSQL they run as
 * named prepared statements (`namePreparedStatements`), parsed and planned once per connection.
 * Bounded: one entry per `prepared`/`preparedOn` call site (and dialect).
 */
const statementNames = new Map<string, string>();

function compileOnce<R>(compiled: CompiledQuery<R>): CompiledQuery<R> {
  if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, `kit_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 16)}`);
  return compiled;
}

/**
 * Makes a PostgreSQL client run the prepared queries' texts as named statements: node-postgres then
 * sends only Bind/Execute for them after the first use on a connection, and the server skips their
 * parse and plan. Kysely's driver passes text and values only, hence the wrapper around `query`.
 * What it saves: docs/performance.md, "Speed at the limits (issue 24)".
 */
export function namePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
  // Statements this connection may no longer run by name: their table changed under them.
  const stale = new Set<string>();
  client.query = ((text: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' ? statementNames.get(text) : undefined;
    if (!name || stale.has(name) || !Array.isArray(rest[0]) || rest.length !== 1) return query(text, ...rest);
    const values = rest[0];
    return query({ name, text, values }).catch((err: unknown) => {
      if ((err as { code?: string }).code !== CACHED_PLAN_CHANGED) throw err;
      // Another instance's migration changed the table (a rolling upgrade): the statement's result
      // type is fixed at its parse, so it fails on this connection from now on. Run the text instead;
      // inside a transaction the failure has aborted it already, and the caller sees the first error.
      stale.add(name);
      return query(text, values).catch(() => Promise.reject(err));
    });
  }) as typeof client.query;
}

/** PostgreSQL's "cached plan must not change result type" (feature_not_supported). */
const CACHED_PLAN_CHANGED = '0A000';

export function prepared<A extends unknown[], R>(
  db: Kysely<Database>,
  build: (...args: A) => { compile(): CompiledQuery<R> },
  arity: A['length'],
): (...args: A) => Promise<R[]> {
  const marks = Array.from({ length: arity }, (_, i) => `\u0000arg${i}\u0000`);
  let compiled: CompiledQuery<R> | undefined;
  let slots: number[] | undefined;
  return async (...args: A) => {
    if (db.getExecutor().plugins.length > 0) return (await db.executeQuery(build(...args))).rows;
    if (!compiled) {
      compiled = compileOnce(build(...(marks as unknown as A)).compile());
      slots = compiled.parameters.map((p) => marks.indexOf(p as string));
      if (new Set(slots.filter((i) => i >= 0)).size !== arity) throw new Error('prepared query must use every argument as a parameter');
    }
    const parameters = slots!.map((slot, i) => (slot < 0 ? compiled!.parameters[i] : args[slot]));
    const result = await db.getExecutor().provideConnection((conn) => conn.executeQuery<R>({ ...compiled!, parameters }));
    return result.rows;
  };
}

/**
 * A prepared query run on the executor given at each call (the database or a transaction), for the
 * hot statements of a transaction (a payment's settlement); resolves with the driver's result, whose
 * `numAffectedRows` an update needs. Compiled with `db`, the Kysely instance the executors come from.
 */
export function preparedOn<A extends unknown[], R>(
  db: Kysely<Database>,
  build: (...args: A) => { compile(): CompiledQuery<R> },
  arity: A['length'],
  /** Whether the query may leave some arguments out (one step of a chain given the chain's arguments: `write-chain.ts`). */
  someArgs = false,
): (on: Kysely<Database>, ...args: A) => Promise<QueryResult<R>> {
  const marks = Array.from({ length: arity }, (_, i) => `\u0000arg${i}\u0000`);
  let compiled: CompiledQuery<R> | undefined;
  let slots: number[] | undefined;
  return (on, ...args) => {
    if (on.getExecutor().plugins.length > 0) return on.executeQuery(build(...args));
    if (!compiled) {
      compiled = compileOnce(build(...(marks as unknown as A)).compile());
      slots = compiled.parameters.map((p) => marks.indexOf(p as string));
      if (!someArgs && new Set(slots.filter((i) => i >= 0)).size !== arity) throw new Error('prepared query must use every argument as a parameter');
    }
    const parameters = slots!.map((slot, i) => (slot < 0 ? compiled!.parameters[i] : args[slot]));
    return on.getExecutor().provideConnection((conn) => conn.executeQuery<R>({ ...compiled!, parameters }));
  };
}
