import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { BetterSqliteDialect } from './sqlite-dialect';
import type { StatementCount } from './statement-count';
import { waitFor } from '../../test/support/wait';

interface DB {
  t: { id: string; n: number };
}

describe('BetterSqliteDialect', () => {
  let dir: string;
  let file: string;
  let db: Kysely<DB>;
  /** The statements the dialect has been asked for: one counted has reached it (and waits for its turn if it must). */
  let statements: StatementCount;
  /** A second, independent handle: it only sees what has really been committed. */
  let observer: SQLite.Database;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-dialect-'));
    file = path.join(dir, 'x.sqlite');
    const raw = new SQLite(file);
    raw.pragma('journal_mode = WAL');
    statements = { count: 0, named: 0 };
    db = new Kysely<DB>({ dialect: new BetterSqliteDialect(raw, statements) });
    await sql`create table t (id text primary key, n integer not null)`.execute(db);
    observer = new SQLite(file, { readonly: true });
  });
  afterEach(async () => {
    observer.close();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const committed = () => (observer.prepare('select count(*) as c from t').get() as { c: number }).c;

  it('groups concurrent writes into one commit and answers each only once it is committed', async () => {
    const writes = Array.from({ length: 200 }, (_, i) =>
      db
        .insertInto('t')
        .values({ id: `k${i}`, n: i })
        .execute()
        .then(() => committed()),
    );
    const seenAtResolve = await Promise.all(writes);
    // Every caller saw its own row already committed when its promise settled.
    expect(Math.min(...seenAtResolve)).toBe(200);
  });

  it('fails only the statement that broke a constraint; the rest of its group commits', async () => {
    await db.insertInto('t').values({ id: 'dup', n: 0 }).execute();
    const results = await Promise.allSettled([
      db.insertInto('t').values({ id: 'a', n: 1 }).execute(),
      db.insertInto('t').values({ id: 'dup', n: 2 }).execute(),
      db.insertInto('t').values({ id: 'b', n: 3 }).execute(),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(committed()).toBe(3);
  });

  it('keeps other statements out of an open transaction until it commits, in order', async () => {
    const order: string[] = [];
    // The transaction goes on only once the outside statement has reached the dialect while it is open.
    let opened!: () => void;
    const open = new Promise<void>((r) => (opened = r));
    let queued!: () => void;
    const outsideQueued = new Promise<void>((r) => (queued = r));
    const tx = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ id: 'tx1', n: 1 }).execute();
      order.push('tx-insert-1');
      opened();
      await outsideQueued;
      await trx.insertInto('t').values({ id: 'tx2', n: 2 }).execute();
      order.push('tx-insert-2');
    });
    await open;
    const asked = statements.count;
    const outside = db
      .selectFrom('t')
      .selectAll()
      .execute()
      .then((rows) => {
        order.push(`outside-saw-${rows.length}`);
      });
    await waitFor(() => statements.count > asked, 'the outside statement at the dialect');
    expect(order).toEqual(['tx-insert-1']);
    queued();
    await Promise.all([tx, outside]);
    expect(order).toEqual(['tx-insert-1', 'tx-insert-2', 'outside-saw-2']);
  });

  it('rolls a failed transaction back entirely', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ id: 'gone', n: 1 }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(committed()).toBe(0);
    expect(await db.selectFrom('t').selectAll().execute()).toEqual([]);
  });

  it('serves many concurrent transactions one after another without losing any', async () => {
    await db.insertInto('t').values({ id: 'counter', n: 0 }).execute();
    await Promise.all(
      Array.from({ length: 50 }, () =>
        db.transaction().execute(async (trx) => {
          const row = await trx.selectFrom('t').select('n').where('id', '=', 'counter').executeTakeFirstOrThrow();
          await new Promise((r) => setImmediate(r));
          await trx
            .updateTable('t')
            .set({ n: row.n + 1 })
            .where('id', '=', 'counter')
            .execute();
        }),
      ),
    );
    expect((observer.prepare("select n from t where id = 'counter'").get() as { n: number }).n).toBe(50);
  });

  it('commits transactions with the group: each settles only once it is committed', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db
          .transaction()
          .execute(async (trx) => {
            await trx
              .insertInto('t')
              .values({ id: `g${i}`, n: i })
              .execute();
            await trx
              .updateTable('t')
              .set({ n: i + 1 })
              .where('id', '=', `g${i}`)
              .execute();
          })
          .then(() => committed()),
      ),
    );
    // Every transaction's own rows were committed when its promise settled.
    for (const [i, seen] of results.entries()) expect(seen).toBeGreaterThanOrEqual(i + 1);
    expect(committed()).toBe(40);
  });

  it('undoes a failed transaction alone: writes grouped with it still commit', async () => {
    const outcomes = await Promise.allSettled([
      db.insertInto('t').values({ id: 'before', n: 1 }).execute(),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ id: 'undone', n: 2 }).execute();
        throw new Error('boom');
      }),
      db.insertInto('t').values({ id: 'after', n: 3 }).execute(),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const ids = (observer.prepare('select id from t order by id').all() as Array<{ id: string }>).map((r) => r.id);
    expect(ids).toEqual(['after', 'before']);
  });

  it('writes a LIMIT or OFFSET parameter as a cast, so that SQLite does not prepare the statement again at every run', async () => {
    await db
      .insertInto('t')
      .values(['a', 'b', 'c', 'd'].map((id, n) => ({ id, n })))
      .execute();
    const page = (limit: number, offset: number) => db.selectFrom('t').select('id').orderBy('n').limit(limit).offset(offset);
    // SQLite plans `order by … limit ?` with the bound value and marks such a statement to be
    // parsed and planned anew whenever that parameter is bound again; a cast it cannot read then.
    expect(page(2, 1).compile().sql).toBe('select "id" from "t" order by "n" limit cast(? as integer) offset cast(? as integer)');
    expect((await page(2, 1).execute()).map((r) => r.id)).toEqual(['b', 'c']);
    expect((await page(1, 3).execute()).map((r) => r.id)).toEqual(['d']);
    // A limit written into the text stays as it is.
    expect(db.selectFrom('t').select('id').limit(sql.lit(3)).compile().sql).toBe('select "id" from "t" limit 3');
  });

  it('reads a read-only transaction as a snapshot that holds no write lock', async () => {
    await db.insertInto('t').values({ id: 'seen', n: 1 }).execute();
    const writer = new SQLite(file); // another process would be the same: no busy wait allowed here
    try {
      await db
        .transaction()
        .setAccessMode('read only')
        .execute(async (trx) => {
          expect(await trx.selectFrom('t').selectAll().execute()).toHaveLength(1);
          // A writer elsewhere gets through at once while the snapshot is open...
          writer.prepare("insert into t (id, n) values ('meanwhile', 2)").run();
          // ...and the snapshot does not see it.
          expect(await trx.selectFrom('t').selectAll().execute()).toHaveLength(1);
        });
    } finally {
      writer.close();
    }
    expect(committed()).toBe(2);
  });
});
