/**
 * Kysely dialect for better-sqlite3, replacing Kysely's own driver for reasons measured under load:
 * - its connection mutex wakes every waiter on each release (quadratic with many concurrent
 *   requests), and serialises even single statements, which better-sqlite3 runs synchronously
 *   anyway. Here only an open explicit transaction makes other statements wait, in FIFO order;
 * - it prepares each statement anew; here statements are cached by SQL text;
 * - each write pays a whole commit. Here everything that arrives in the same event-loop turn shares
 *   one transaction (group commit): autocommit statements run at once, explicit transactions run
 *   inside it as a savepoint (released on commit, rolled back alone on failure), and each caller's
 *   promise settles only after the shared COMMIT, so nothing is reported done before it is durable.
 *   A failing statement is undone alone (SQLite's statement-level abort).
 * The group begins IMMEDIATE so another process (the `kit` command) can never deadlock a
 * read-then-write upgrade.
 * What group commit and the statement cache save, measured with and without each: docs/performance.md, "What the speed tricks buy".
 */
import type SQLite from 'better-sqlite3';
import {
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  ValueNode,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type LimitNode,
  type OffsetNode,
  type OperationNode,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { StatementCount } from './statement-count';

const STATEMENT_CACHE = 512;
/** The savepoint an explicit transaction runs in (one at a time: the owner's). */
const SAVEPOINT = 'kit_tx';

type Waiter = { kind: 'statement'; resolve: () => void } | { kind: 'transaction'; lease: Lease; resolve: () => void };

/** The one better-sqlite3 handle and the rules for sharing it. */
class SharedDatabase {
  /** The statements Kysely asked for (its BEGIN and COMMIT included), as on PostgreSQL. */
  statements: StatementCount = { count: 0, named: 0 };
  private readonly cache = new Map<string, SQLite.Statement>();
  private group: Array<(error?: unknown) => void> | undefined;
  owner: Lease | undefined;
  private readonly waiting: Waiter[] = [];
  /** A flush came while a transaction was open: the group commits as soon as it ends. */
  private flushWhenFree = false;
  /** The owner's transaction is a read-only snapshot of its own (BEGIN DEFERRED), outside any group. */
  private reading = false;

  constructor(readonly db: SQLite.Database) {}

  prepare(sql: string): SQLite.Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      if (this.cache.size >= STATEMENT_CACHE) this.cache.clear();
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  run<R>(stmt: SQLite.Statement, params: unknown[]): QueryResult<R> {
    if (stmt.reader) return { rows: stmt.all(params) as R[] };
    const { changes, lastInsertRowid } = stmt.run(params);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  /** This turn's group, opened (BEGIN IMMEDIATE, COMMIT at the end of the turn) if there is none. */
  private openGroup(): Array<(error?: unknown) => void> {
    if (!this.group) {
      this.prepare('begin immediate').run();
      this.group = [];
      setImmediate(() => this.flush());
    }
    return this.group;
  }

  /** Settles once the open group has committed (rejects when it could not). */
  private committed(): Promise<void> {
    const group = this.openGroup();
    return new Promise<void>((resolve, reject) => group.push((e) => (e ? reject(e) : resolve())));
  }

  /**
   * A statement outside any explicit transaction: joins (or opens) this turn's group. Only a
   * read-only statement runs alone when no group is open: a write that returns rows (a job claim's
   * `update … returning`) would otherwise pay a commit of its own, most of a claim's time in the
   * notifications scenario (docs/performance.md, "What the speed tricks buy").
   */
  async grouped<R>(stmt: SQLite.Statement, params: unknown[]): Promise<QueryResult<R>> {
    if (stmt.readonly && !this.group) return this.run<R>(stmt, params);
    this.openGroup();
    // Run now (later statements of the group see it); answer once the group has committed.
    const result = this.run<R>(stmt, params);
    await this.committed();
    return result;
  }

  /** Commits the open group, if any, and settles its callers; waits for an open transaction to end. */
  flush(): void {
    const group = this.group;
    if (!group) return;
    if (this.owner) {
      this.flushWhenFree = true;
      return;
    }
    this.flushWhenFree = false;
    this.group = undefined;
    let failure: unknown;
    try {
      if (this.db.inTransaction) this.prepare('commit').run();
      else failure = new Error('SQLite rolled the grouped transaction back');
    } catch (e) {
      failure = e;
      if (this.db.inTransaction) this.db.prepare('rollback').run();
    }
    for (const settle of group) settle(failure);
  }

  /** Resolves when `lease` may run a statement: no explicit transaction of another lease is open. */
  statementTurn(lease: Lease): Promise<void> | undefined {
    if (!this.owner || this.owner === lease) return undefined;
    return new Promise((resolve) => this.waiting.push({ kind: 'statement', resolve }));
  }

  /**
   * Starts the lease's transaction once no other is open. A read-only one with no group open reads
   * a snapshot in a deferred transaction of its own: it takes no write lock, so a long read (the
   * ledger check of `kit chain verify`) never holds up writers in this or another process.
   */
  async begin(lease: Lease, readOnly = false): Promise<void> {
    if (this.owner) await new Promise<void>((resolve) => this.waiting.push({ kind: 'transaction', lease, resolve }));
    else this.owner = lease;
    try {
      if (readOnly && !this.group) {
        this.prepare('begin deferred').run();
        this.reading = true;
        return;
      }
      this.openGroup();
      this.prepare(`savepoint ${SAVEPOINT}`).run();
    } catch (e) {
      this.release();
      throw e;
    }
  }

  /**
   * Ends the owner's transaction. A commit releases its savepoint into the group and settles when
   * the group has committed; a rollback undoes the savepoint alone.
   */
  async end(how: 'commit' | 'rollback'): Promise<void> {
    if (this.reading) {
      this.reading = false;
      try {
        if (this.db.inTransaction) this.prepare(how).run();
      } finally {
        this.release();
      }
      return;
    }
    let done: Promise<void> | undefined;
    try {
      // SQLite may have rolled the whole group back (e.g. disk full): then nothing is left to end.
      if (!this.db.inTransaction) {
        if (how === 'commit') throw new Error('SQLite rolled the transaction back');
        return;
      }
      if (how === 'commit') {
        this.prepare(`release ${SAVEPOINT}`).run();
        done = this.committed();
      } else {
        this.prepare(`rollback to ${SAVEPOINT}`).run();
        this.prepare(`release ${SAVEPOINT}`).run();
      }
    } finally {
      this.release();
    }
    await done;
  }

  /** The owner is done: queued statements and the next transaction may go; a waiting flush runs. */
  private release(): void {
    this.owner = undefined;
    if (this.flushWhenFree) setImmediate(() => this.flush());
    this.handOver();
  }

  /**
   * Lets every statement queued ahead of the next transaction run (they resume before its BEGIN,
   * in resolution order), then hands ownership straight to that transaction.
   */
  private handOver(): void {
    while (this.waiting.length) {
      const next = this.waiting.shift()!;
      if (next.kind === 'statement') next.resolve();
      else {
        this.owner = next.lease;
        next.resolve();
        return;
      }
    }
  }
}

/** What Kysely calls a connection: a lease on the shared handle, one per query or transaction. */
class Lease implements DatabaseConnection {
  constructor(private readonly shared: SharedDatabase) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.shared.statements.count++;
    const turn = this.shared.statementTurn(this);
    if (turn) await turn;
    const stmt = this.shared.prepare(query.sql);
    const params = query.parameters as unknown[];
    return this.shared.owner === this ? this.shared.run<R>(stmt, params) : this.shared.grouped<R>(stmt, params);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite can only stream select queries');
    this.shared.statements.count++;
    // Not cached: an iterating statement cannot be reused until it is done.
    for (const row of this.shared.db.prepare(query.sql).iterate(query.parameters as unknown[])) yield { rows: [row as R] };
  }
}

class LeaseDriver implements Driver {
  constructor(private readonly shared: SharedDatabase) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this.shared);
  }

  async releaseConnection(): Promise<void> {}

  beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    this.shared.statements.count++;
    return this.shared.begin(conn as Lease, settings.accessMode === 'read only');
  }

  commitTransaction(): Promise<void> {
    this.shared.statements.count++;
    return this.shared.end('commit');
  }

  rollbackTransaction(): Promise<void> {
    this.shared.statements.count++;
    return this.shared.end('rollback');
  }

  async destroy(): Promise<void> {
    this.shared.flush();
    this.shared.db.close();
  }
}

/**
 * SQLite's compiler, with a LIMIT or OFFSET given as a parameter written `cast(? as integer)`.
 * SQLite plans `… order by … limit ?` with the value bound to the parameter, and so marks the
 * statement to be parsed and planned again each time that parameter is bound, which is every run:
 * a job claim (`update … where id in (select … order by next_at limit ?)`) cost a full prepare per
 * claim. It cannot read a cast at planning time, so the statement keeps one plan; the limit applies
 * as before (docs/performance.md, "A claim prepared once on SQLite").
 */
class KitSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit ');
    this.integerOperand(node.limit);
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset ');
    this.integerOperand(node.offset);
  }

  private integerOperand(node: OperationNode): void {
    if (!ValueNode.is(node) || node.immediate) return this.visitNode(node);
    this.append('cast(');
    this.visitNode(node);
    this.append(' as integer)');
  }
}

export class BetterSqliteDialect implements Dialect {
  private readonly shared: SharedDatabase;

  constructor(db: SQLite.Database, statements?: StatementCount) {
    this.shared = new SharedDatabase(db);
    if (statements) this.shared.statements = statements;
  }

  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver() {
    return new LeaseDriver(this.shared);
  }
  createQueryCompiler() {
    return new KitSqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
