/**
 * PostgreSQL as the kit uses it: one schema (`DATABASE_SCHEMA`, else the connection's first) of a
 * database that others may share: several kits, a test run's parallel workers. Kysely's Migrator asks
 * the dialect whether its tables exist and for a migration lock. Kysely's own answers read every table
 * of every schema, naming each through `pg_get_serial_sequence`, which fails with `schema "…" does not
 * exist` when another schema is dropped meanwhile, and take one lock for the whole database. These
 * look at and lock the kit's own schema only.
 */
import {
  PostgresAdapter,
  PostgresDialect,
  sql,
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`select current_schema() as name`.execute(this.db);
    return rows.filter((r) => r.name !== null);
  }

  /** The schema's tables and views with their columns, read from its catalog alone. */
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{
      table: string;
      kind: string;
      schema: string;
      column: string | null;
      type: string | null;
      notNull: boolean;
      default: string | null;
      identity: string;
    }>`
      select c.relname as table, c.relkind as kind, n.nspname as schema, a.attname as column, t.typname as type,
             a.attnotnull as "notNull", pg_get_expr(d.adbin, d.adrelid) as default, coalesce(a.attidentity, '') as identity
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      left join pg_catalog.pg_type t on t.oid = a.atttypid
      left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm')
      order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
    for (const r of rows) {
      let table = tables.get(r.table);
      if (!table) tables.set(r.table, (table = { name: r.table, schema: r.schema, isView: r.kind === 'v' || r.kind === 'm', columns: [] }));
      if (r.column === null) continue;
      table.columns.push({
        name: r.column,
        dataType: r.type ?? '',
        isNullable: !r.notNull,
        hasDefaultValue: r.default !== null || r.identity !== '',
        isAutoIncrementing: r.identity !== '' || (r.default ?? '').startsWith('nextval('),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

class OwnSchemaAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_lock(hashtext(current_schema() || ':kysely-migrations'))`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_unlock(hashtext(current_schema() || ':kysely-migrations'))`.execute(db);
  }
}

export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }

  override createAdapter(): PostgresAdapter {
    return new OwnSchemaAdapter();
  }
}
