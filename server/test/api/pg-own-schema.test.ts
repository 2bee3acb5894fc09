/**
 * A kit on PostgreSQL looks at and locks its own schema only (`db/pg-schema-dialect.ts`): other
 * kits and a test run's parallel workers share the database, creating and dropping schemas beside it.
 */
import pg from 'pg';
import { migrate, openDatabase, type DbHandle } from '../../src/db/connect';
import { backends } from '../support/backends';
import { waitFor } from '../support/wait';

const postgres = backends().find((b) => b.name === 'postgres');

(postgres ? describe : describe.skip)('a kit in its PostgreSQL schema', () => {
  const handles: DbHandle[] = [];
  const open = async () => {
    const env = postgres!.env();
    const h = await openDatabase({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, schema: env.DATABASE_SCHEMA });
    handles.push(h);
    return h;
  };
  afterAll(async () => {
    for (const h of handles) await h.close();
    await postgres!.cleanup();
  });

  it("reads its own schema's tables and columns, none of another's", async () => {
    const other = await open();
    await migrate(other);
    const own = await open();
    await migrate(own);
    const tables = await own.db.introspection.getTables();
    expect(tables.length).toBeGreaterThan(10);
    expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([own.schema]));
    const orders = tables.find((t) => t.name === 'prepay_orders')!;
    expect(orders.columns.map((c) => c.name)).toContain('prepay_id');
    expect(orders.columns.find((c) => c.name === 'prepay_id')).toMatchObject({ isNullable: false });
  });

  it("migrates while another schema's migration holds Kysely's database-wide lock", async () => {
    // Kysely's own PostgreSQL adapter takes this one advisory lock for every schema of the database.
    const KYSELY_LOCK_ID = '3853314791062309107';
    const holder = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await holder.connect();
    try {
      await holder.query(`select pg_advisory_lock(${KYSELY_LOCK_ID})`);
      const h = await open();
      // Blocked by the lock, it would never end while the lock is held: not seen within the fault limit.
      let outcome: 'migrated' | Error | undefined;
      void migrate(h).then(
        () => (outcome = 'migrated'),
        (e: Error) => (outcome = e),
      );
      expect(await waitFor(() => outcome, 'the migration beside the held lock')).toBe('migrated');
    } finally {
      await holder.end();
    }
  });
});
