import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/** Profit sharing (4.8): receivers, the sharing state of each order, every split and finish. */
export function profitSharing(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('ps_receivers')
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('relation_type', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('removed_at', t.bigint)
        .addPrimaryKeyConstraint('ps_receivers_pk', ['merchant_id', 'type', 'account'])
        .execute();
      // Which receivers the channel already knows, per merchant number there (adding is idempotent, but costs a call).
      await db.schema
        .createTable('ps_channel_receivers')
        .addColumn('channel_mch_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('added_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('ps_channel_receivers_pk', ['channel_mch_id', 'type', 'account'])
        .execute();
      await db.schema
        .createTable('ps_orders')
        .addColumn('prepay_id', 'text', (c) => c.primaryKey().references('prepay_orders.prepay_id'))
        .addColumn('total_cents', t.bigint, (c) => c.notNull())
        .addColumn('max_share_cents', t.bigint, (c) => c.notNull())
        // Shared or being shared: the 30 % rule is a conditional update of this one number.
        .addColumn('shared_cents', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('unfrozen_at', t.bigint)
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('ps_requests')
        // Also the `out_order_no` at the channel: the merchant's number is only unique per order.
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('prepay_id', 'text', (c) => c.notNull().references('prepay_orders.prepay_id'))
        .addColumn('out_order_no', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('finish', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('receivers_json', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('amount_cents', t.bigint, (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('channel_order_id', 'text')
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addUniqueConstraint('ps_requests_out_order_no', ['prepay_id', 'out_order_no'])
        .execute();
      // The platform's side (sandbox_ps_receivers, sandbox_ps_orders, sandbox_orders.unfrozen_at) was
      // created here until the sandbox got its own migrations (`sandbox/migrations/0001_sandbox.ts`).
    },
  };
}
