import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/** Payments (issue 3): channel orders, refunds, the callback outbox and its attempts (and the sandbox's notification outbox, folded into jobs by 0004). */
export function payments(dialect: Dialect) {
  const t = columnTypes(dialect);
  const serialPk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('pay_channel_orders')
        .addColumn('out_trade_no', 'text', (c) => c.primaryKey())
        .addColumn('prepay_id', 'text', (c) => c.notNull().references('prepay_orders.prepay_id'))
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('trade_type', 'text', (c) => c.notNull())
        .addColumn('sign_type', 'text', (c) => c.notNull())
        .addColumn('open_id', 'text')
        .addColumn('profit_sharing', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('total_cents', t.bigint, (c) => c.notNull())
        .addColumn('merchant_json', 'text', (c) => c.notNull())
        .addColumn('channel_prepay_id', 'text')
        .addColumn('code_url', 'text')
        .addColumn('answer_json', 'text')
        .addColumn('transaction_id', 'text')
        .addColumn('paid_at', t.bigint)
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('pay_channel_orders_prepay').on('pay_channel_orders').column('prepay_id').execute();
      // At most one payable channel order per prepay order: concurrent argument requests race on this.
      await db.schema
        .createIndex('pay_channel_orders_one_open')
        .on('pay_channel_orders')
        .column('prepay_id')
        .unique()
        .where(sql.ref('state'), 'in', ['creating', 'open'])
        .execute();

      await db.schema
        .createTable('pay_refunds')
        // One refund per order (full refunds only): the primary key is what makes it exactly one.
        .addColumn('prepay_id', 'text', (c) => c.primaryKey().references('prepay_orders.prepay_id'))
        .addColumn('out_refund_no', 'text', (c) => c.notNull().unique())
        .addColumn('out_trade_no', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('refund_cents', t.bigint, (c) => c.notNull())
        .addColumn('refund_id', 'text')
        .addColumn('requested_by', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('completed_at', t.bigint)
        .execute();

      await db.schema
        .createTable('callback_outbox')
        .addColumn('id', t.serial, serialPk)
        .addColumn('event_key', 'text', (c) => c.notNull().unique())
        .addColumn('prepay_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('sub_merchant_id', 'text', (c) => c.notNull())
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('owner_app_id', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', t.bigint, (c) => c.notNull())
        .addColumn('claim_token', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('delivered_at', t.bigint)
        .execute();
      await db.schema.createIndex('callback_outbox_due').on('callback_outbox').columns(['state', 'next_attempt_at']).execute();
      await db.schema.createIndex('callback_outbox_prepay').on('callback_outbox').column('prepay_id').execute();
      await db.schema
        .createTable('callback_attempts')
        .addColumn('id', t.serial, serialPk)
        .addColumn('outbox_id', t.bigint, (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', t.bigint, (c) => c.notNull())
        .addColumn('url', 'text')
        .addColumn('http_status', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('response_head', 'text')
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('callback_attempts_outbox').on('callback_attempts').column('outbox_id').execute();

      // The sandbox's orders and refunds were created here until the sandbox got its own migrations
      // (`sandbox/migrations/0001_sandbox.ts`, applied only when SANDBOX_ENABLED, adopts them where
      // this created them). Its notification outbox stays: 0004_jobs moves its rows into the jobs
      // table and drops it.
      await db.schema
        .createTable('sandbox_notifications')
        .addColumn('id', t.serial, serialPk)
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('ref', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('duplicates_left', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_at', t.bigint, (c) => c.notNull())
        .addColumn('claim_token', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('acked_at', t.bigint)
        .execute();
      await db.schema.createIndex('sandbox_notifications_due').on('sandbox_notifications').columns(['state', 'next_at']).execute();
    },
  };
}
