/** Recognises a unique-constraint violation from either driver. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err?.code === '23505' || err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || err?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Network failures of the PostgreSQL driver (node's socket errors), and the pool's own bound running out (`bounded-pool.ts`: ETIMEDOUT). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/**
 * PostgreSQL SQLSTATEs of a server that cannot answer now: connection exceptions (class 08),
 * insufficient resources (class 53: disk full, out of memory, too many connections), operator
 * intervention (57P01–57P05: sessions terminated by an administrator, the server shutting down or
 * starting up, cannot connect now), a statement cancelled by `statement_timeout` (57014), a
 * read-only transaction (25006: a standby after a failover), and a database not accepting
 * connections (55000, see `isConnectionsRefused`).
 */
const PG_UNAVAILABLE = /^(08|53|57P0)/;
const PG_CODES = new Set(['57014', '25006']);
/**
 * A database that does not accept connections (`alter database … allow_connections false`: an
 * operator fencing it before a failover or a restore) refuses each new session with 55000. That
 * code is "object not in prerequisite state" in general, which is otherwise a fault of the query
 * itself (`currval` before `nextval`, a materialized view not yet populated, …): retrying that later
 * would fail the same way, so it must stay a 500. Hence 55000 counts only as this refusal, told by
 * the server's routine (`CheckMyDatabase`, which is not translated when `lc_messages` is) or by the
 * message's English text (the routine is optional in the protocol).
 */
function isConnectionsRefused(code: string, err: { message?: unknown; routine?: unknown }): boolean {
  return (
    code === '55000' && (err.routine === 'CheckMyDatabase' || (typeof err.message === 'string' && /not currently accepting connections/i.test(err.message)))
  );
}
/** SQLite: disk full, files read-only or unreadable, the disk failing, or locked beyond the busy wait. */
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|NOMEM)/;
/** What the pg pool and client say when no connection comes, or one ends or stalls mid-query. */
const PG_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|Client has encountered a connection error|connection is not open/i;

/**
 * Whether an error means the database cannot answer right now (as opposed to a bug or a bad
 * query): the request is then answered 503 `unavailable` with `Retry-After`, and a retry later can
 * succeed without anything changing on the client's side.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown; routine?: unknown; errors?: unknown } | null;
  if (!err || typeof err !== 'object') return false;
  const code = typeof err.code === 'string' ? err.code : '';
  if (
    NETWORK_CODES.has(code) ||
    SQLITE_UNAVAILABLE.test(code) ||
    PG_CODES.has(code) ||
    (/^[0-9A-Z]{5}$/.test(code) && PG_UNAVAILABLE.test(code)) ||
    isConnectionsRefused(code, err)
  )
    return true;
  if (typeof err.message === 'string' && PG_MESSAGES.test(err.message)) return true;
  // Node reports a refused dual-stack connection as an AggregateError of both attempts.
  return Array.isArray(err.errors) && err.errors.some(isDatabaseUnavailable);
}
