/**
 * Writes that follow each other, each done only if the write it follows changed a row (a payment's
 * settlement: the channel order paid, then the order moved, then its callback). The steps are built
 * once, by the stores that own their tables, and run the same rules on both databases:
 *
 * - PostgreSQL: one statement, each step a data-modifying WITH whose WHERE carries
 *   `exists (select 1 from <the step it follows>)`. One round trip, atomic without BEGIN/COMMIT; the
 *   steps see one snapshot, so a step reads rows as they were before the statement (never a row
 *   an earlier step wrote), and row locks make a concurrent chain on the same rows wait and re-check
 *   its WHERE, as separate statements in a transaction would. What it saves: docs/performance.md (issue 34).
 * - SQLite: the steps one after another in a transaction, a step skipped when the step it follows
 *   wrote nothing; statements there are calls into the process, not round trips.
 *
 * Every step returns a row per row it wrote (RETURNING): the result is how many each wrote.
 */
import { PostgresAdapter, sql, type Expression, type Kysely, type OperationNodeSource, type SqlBool } from 'kysely';
import type { Database } from './schema';
import { preparedOn } from './prepared';

/** What a step's WHERE gets on PostgreSQL: true when the step it follows wrote a row (and its `unless` step none). */
export type Guard = Expression<SqlBool> | undefined;

/** A query a step builds (a Kysely builder or raw SQL): run alone on SQLite, embedded in the WITH on PostgreSQL. */
export type StepQuery = OperationNodeSource;

/** A chain's arguments, by name (each a parameter of its statements). */
export type ChainArgs = Record<string, unknown>;

export interface ChainStep<A extends ChainArgs> {
  /** Its name in the WITH, and its key in the result. */
  name: string;
  /** The step that must have written a row for this one to run; none: it always runs. */
  after?: string;
  /**
   * A step (before this one) that must have written nothing for this one to run: the rare branch of
   * a chain (a payment of an order already paid), which costs the usual case no statement on SQLite
   * and only a WITH that writes nothing on PostgreSQL.
   */
  unless?: string;
  /** The write, with `guard` (PostgreSQL; undefined on SQLite) added to its WHERE, returning a row per row written. */
  build(guard: Guard, args: A): StepQuery;
}

export type ChainResult = Record<string, number>;

/**
 * The chain as one function of its named arguments (statements prepared once, `argNames` their
 * parameters' order); resolves with the rows each step wrote (0: not run).
 */
export function writeChain<A extends ChainArgs>(
  db: Kysely<Database>,
  steps: ChainStep<A>[],
  argNames: readonly (keyof A & string)[],
): (args: A) => Promise<ChainResult> {
  const named = (values: unknown[]) => Object.fromEntries(argNames.map((n, i) => [n, values[i]])) as A;
  const positional = (args: A) => argNames.map((n) => args[n]);
  const arity = argNames.length;
  const names = new Set<string>();
  for (const s of steps) {
    if (s.after && !names.has(s.after)) throw new Error(`chain step ${s.name} follows ${s.after}, which is not before it`);
    if (s.unless && !names.has(s.unless)) throw new Error(`chain step ${s.name} is unless ${s.unless}, which is not before it`);
    names.add(s.name);
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const statement = preparedOn(db, (...values: unknown[]) => ({ compile: () => withStatement(steps, named(values)).compile(db) }), arity, true);
    return async (args) => {
      const row = (await statement(db, ...positional(args))).rows[0] as Record<string, number | string>;
      return Object.fromEntries(steps.map((s) => [s.name, Number(row[s.name])]));
    };
  }
  const statements = steps.map((s) =>
    preparedOn(db, (...values: unknown[]) => ({ compile: () => sql`${s.build(undefined, named(values))}`.compile(db) }), arity, true),
  );
  return (args) =>
    db.transaction().execute(async (trx) => {
      const values = positional(args);
      const wrote: ChainResult = Object.fromEntries(steps.map((s) => [s.name, 0]));
      for (const [i, s] of steps.entries()) {
        if ((s.after && !wrote[s.after]) || (s.unless && wrote[s.unless])) continue;
        wrote[s.name] = (await statements[i](trx, ...values)).rows.length;
      }
      return wrote;
    });
}

/** `with a as (…), b as (… where exists (select 1 from a)) select (select count(*) from a) as a, …` */
function withStatement<A extends ChainArgs>(steps: ChainStep<A>[], args: A) {
  const parts = steps.map((s) => {
    const after = s.after ? sql<SqlBool>`exists (select 1 from ${sql.id(s.after)})` : undefined;
    const unless = s.unless ? sql<SqlBool>`not exists (select 1 from ${sql.id(s.unless)})` : undefined;
    const guard = after && unless ? sql<SqlBool>`${after} and ${unless}` : (after ?? unless);
    return sql`${sql.id(s.name)} as (${s.build(guard, args)})`;
  });
  // Every step is counted, so every one runs: PostgreSQL skips a plain SELECT in a WITH nobody reads.
  const counts = steps.map((s) => sql`(select count(*) from ${sql.id(s.name)}) as ${sql.id(s.name)}`);
  return sql<Record<string, number>>`with ${sql.join(parts)} select ${sql.join(counts)}`;
}
