/**
 * The statements this process sends to its database, BEGIN and COMMIT included. On PostgreSQL each
 * is a round trip, the unit a payment notification's cost is counted in (docs/performance.md,
 * issue 34); exposed as `kit_db_statements_total`. Counting is one increment per statement.
 */
import type pg from 'pg';

export interface StatementCount {
  count: number;
}

/** Counts every query a PostgreSQL client sends: Kysely's, the order event bridge's, LISTEN. */
export function countQueries(client: pg.PoolClient, counter: StatementCount): void {
  const query = client.query.bind(client) as (...a: unknown[]) => unknown;
  client.query = ((...a: unknown[]) => {
    counter.count++;
    return query(...a);
  }) as typeof client.query;
}
