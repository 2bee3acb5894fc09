/**
 * The statements this process sends to its database, BEGIN and COMMIT included. On PostgreSQL each
 * is a round trip, the unit a payment notification's cost is counted in (docs/performance.md,
 * issue 34); exposed as `kit_db_statements_total`. Counting is one increment per statement.
 */
import type pg from 'pg';

export interface StatementCount {
  count: number;
  /** Of those, sent as named prepared statements (PostgreSQL parses and plans each once per connection: `prepared.ts`). */
  named: number;
}

/** Counts every query a PostgreSQL client sends: Kysely's, the order event bridge's, LISTEN. */
export function countQueries(client: pg.PoolClient, counter: StatementCount): void {
  const query = client.query.bind(client) as (...a: unknown[]) => unknown;
  client.query = ((...a: unknown[]) => {
    counter.count++;
    if (typeof a[0] === 'object' && a[0] !== null && (a[0] as { name?: unknown }).name) counter.named++;
    return query(...a);
  }) as typeof client.query;
}
