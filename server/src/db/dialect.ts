/** Column types that differ between SQLite and PostgreSQL, for migrations. */
import type { ColumnDataType } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

export function columnTypes(dialect: Dialect) {
  return {
    /** Unix milliseconds and other 64-bit integers. */
    bigint: (dialect === 'postgres' ? 'bigint' : 'integer') as ColumnDataType,
    /** Auto-incrementing row id. */
    serial: (dialect === 'postgres' ? 'bigserial' : 'integer') as ColumnDataType,
    blob: (dialect === 'postgres' ? 'bytea' : 'blob') as ColumnDataType,
  };
}
