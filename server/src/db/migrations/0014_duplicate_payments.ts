import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/**
 * An order is paid once (design 6.3): a second payment of the same prepay order through another of
 * its channel orders (another wallet, another flow) is refunded automatically, under a refund number
 * of its own. Kept apart from `pay_refunds`, which holds the order's one refund (4.6) keyed by the
 * prepay order: the duplicate's refund is keyed by the channel order that was paid twice.
 */
export function duplicatePayments(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('pay_duplicate_payments')
        // One per channel order: a channel order is paid at most once.
        .addColumn('out_trade_no', 'text', (c) => c.primaryKey().references('pay_channel_orders.out_trade_no'))
        .addColumn('prepay_id', 'text', (c) => c.notNull().references('prepay_orders.prepay_id'))
        .addColumn('channel', 'text', (c) => c.notNull())
        // The same number on every retry: the channel treats it as the same refund.
        .addColumn('out_refund_no', 'text', (c) => c.notNull().unique())
        .addColumn('refund_cents', t.bigint, (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('refund_id', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('completed_at', t.bigint)
        .execute();
      await db.schema.createIndex('pay_duplicate_payments_prepay').on('pay_duplicate_payments').column('prepay_id').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('pay_duplicate_payments').execute();
    },
  };
}
