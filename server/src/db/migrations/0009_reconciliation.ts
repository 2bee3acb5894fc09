import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/** Daily statement reconciliation (docs/reconciliation.md): reports, the bill lines they read, the differences found. */
export function reconciliation(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('recon_reports')
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('totals_json', 'text')
        .addColumn('had_bill', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('done_at', t.bigint)
        .addPrimaryKeyConstraint('recon_reports_pk', ['day', 'channel'])
        .execute();
      await db.schema
        .createTable('recon_bill_lines')
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('line_no', 'integer', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('out_trade_no', 'text', (c) => c.notNull())
        .addColumn('out_refund_no', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('amount_cents', t.bigint, (c) => c.notNull())
        .addColumn('fee_units', t.bigint, (c) => c.notNull())
        .addColumn('transaction_id', 'text', (c) => c.notNull())
        .addColumn('refund_id', 'text')
        .addColumn('sub_mch_id', 'text', (c) => c.notNull())
        .addColumn('time', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('recon_bill_lines_pk', ['day', 'channel', 'line_no'])
        .execute();
      await db.schema
        .createTable('recon_differences')
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('out_trade_no', 'text', (c) => c.notNull())
        .addColumn('out_refund_no', 'text', (c) => c.notNull())
        .addColumn('prepay_id', 'text')
        .addColumn('sub_merchant_id', 'text')
        .addColumn('channel_mch_id', 'text')
        .addColumn('kit_json', 'text', (c) => c.notNull())
        .addColumn('channel_json', 'text', (c) => c.notNull())
        .addColumn('resolution', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('recon_differences_pk', ['day', 'channel', 'kind', 'out_trade_no', 'out_refund_no'])
        .execute();
      // Kit-only lines waiting for the next day's bill are looked up by resolution.
      await db.schema.createIndex('recon_differences_resolution').on('recon_differences').columns(['channel', 'resolution']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('recon_differences').execute();
      await db.schema.dropTable('recon_bill_lines').execute();
      await db.schema.dropTable('recon_reports').execute();
    },
  };
}
