import { sql, type Kysely } from 'kysely';
import type { Dialect } from '@kit/server/plugins/dev-plugin';
import { columnTypes } from '@kit/server/plugins/kit';

/**
 * The sandbox's tables: the platform's orders, refunds and login codes, and its profit-sharing
 * side. Until the sandbox had migrations of its own, the service's 0002_payments and
 * 0005_profit_sharing created them (and a database that ran those still has them, with rows):
 * so every table and index is created only if missing, and `sandbox_orders.unfrozen_at` (added by
 * the old 0005) is added when a database ran the old 0002 but not 0005 before upgrading.
 */
export function sandboxTables(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    // Migrations are written against the schema of their time, not the current one: `Kysely<unknown>`, as the service's own.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sandbox_orders')
        .ifNotExists()
        .addColumn('prepay_id', 'text', (c) => c.primaryKey())
        .addColumn('realm', 'text', (c) => c.notNull())
        .addColumn('code_token', 'text', (c) => c.unique())
        .addColumn('appid', 'text', (c) => c.notNull())
        .addColumn('mch_id', 'text', (c) => c.notNull())
        .addColumn('sub_appid', 'text')
        .addColumn('sub_mch_id', 'text')
        .addColumn('device_info', 'text')
        .addColumn('out_trade_no', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('total_fee', t.bigint, (c) => c.notNull())
        .addColumn('trade_type', 'text', (c) => c.notNull())
        .addColumn('openid', 'text')
        .addColumn('sub_openid', 'text')
        .addColumn('notify_url', 'text', (c) => c.notNull())
        .addColumn('sign_type', 'text', (c) => c.notNull())
        .addColumn('profit_sharing', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('time_expire', t.bigint)
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('transaction_id', 'text', (c) => c.unique())
        .addColumn('paid_at', t.bigint)
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        // Profit-sharing orders: the platform keeps their funds frozen until their sharing is finished.
        .addColumn('unfrozen_at', t.bigint)
        .addUniqueConstraint('sandbox_orders_trade_no', ['realm', 'mch_id', 'out_trade_no'])
        .execute();
      if (!(await hasColumn(db, dialect, 'sandbox_orders', 'unfrozen_at'))) {
        await db.schema.alterTable('sandbox_orders').addColumn('unfrozen_at', t.bigint).execute();
      }
      await db.schema
        .createTable('sandbox_refunds')
        .ifNotExists()
        .addColumn('refund_id', 'text', (c) => c.primaryKey())
        .addColumn('realm', 'text', (c) => c.notNull())
        .addColumn('mch_id', 'text', (c) => c.notNull())
        .addColumn('out_refund_no', 'text', (c) => c.notNull())
        .addColumn('prepay_id', 'text', (c) => c.notNull())
        .addColumn('refund_fee', t.bigint, (c) => c.notNull())
        .addColumn('notify_url', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('success_at', t.bigint)
        .addUniqueConstraint('sandbox_refunds_no', ['realm', 'mch_id', 'out_refund_no'])
        .execute();
      await db.schema
        .createTable('sandbox_login_codes')
        .ifNotExists()
        .addColumn('code', 'text', (c) => c.primaryKey())
        .addColumn('user_name', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('sandbox_ps_receivers')
        .ifNotExists()
        .addColumn('mch_id', 'text', (c) => c.notNull())
        .addColumn('sub_mch_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('relation_type', 'text', (c) => c.notNull())
        .addColumn('added_at', t.bigint, (c) => c.notNull())
        .addColumn('removed_at', t.bigint)
        .addPrimaryKeyConstraint('sandbox_ps_receivers_pk', ['mch_id', 'sub_mch_id', 'type', 'account'])
        .execute();
      await db.schema
        .createTable('sandbox_ps_orders')
        .ifNotExists()
        .addColumn('order_id', 'text', (c) => c.primaryKey())
        .addColumn('mch_id', 'text', (c) => c.notNull())
        .addColumn('sub_mch_id', 'text', (c) => c.notNull())
        .addColumn('out_order_no', 'text', (c) => c.notNull())
        .addColumn('prepay_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('receivers_json', 'text', (c) => c.notNull())
        .addColumn('amount', t.bigint, (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('results_at', t.bigint, (c) => c.notNull())
        .addColumn('results_json', 'text')
        .addUniqueConstraint('sandbox_ps_orders_no', ['mch_id', 'sub_mch_id', 'out_order_no'])
        .execute();
      await db.schema.createIndex('sandbox_ps_orders_prepay').ifNotExists().on('sandbox_ps_orders').column('prepay_id').execute();
    },
  };
}

async function hasColumn(db: Kysely<unknown>, dialect: Dialect, table: string, column: string): Promise<boolean> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.columns
      where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`.execute(db);
    return Number(rows[0]?.n ?? 0) > 0;
  }
  const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.some((r) => r.name === column);
}
