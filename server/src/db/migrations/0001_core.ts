import type { Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

export function core(dialect: Dialect) {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('apps')
        .addColumn('app_id', 'text', (c) => c.primaryKey())
        .addColumn('secret_enc', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('replay_guard')
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('sig', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('replay_guard_pk', ['app_id', 'sig'])
        .execute();
      await db.schema.createIndex('replay_guard_expiry').on('replay_guard').column('expires_at').execute();
      await db.schema
        .createTable('merchants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('display_name', 'text', (c) => c.notNull())
        .addColumn('pw_hash', 'text', (c) => c.notNull())
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('created_by_app_id', 'text', (c) => c.notNull())
        .addColumn('parent_merchant_id', 'text', (c) => c.references('merchants.id'))
        .addColumn('profit_sharing_contracted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('merchants_parent').on('merchants').column('parent_merchant_id').execute();
      await db.schema
        .createTable('login_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('payment_params')
        .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('params_json', 'text', (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_params_pk', ['merchant_id', 'channel'])
        .execute();
      await db.schema
        .createTable('prepay_orders')
        .addColumn('prepay_id', 'text', (c) => c.primaryKey())
        .addColumn('sub_merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('total_cents', t.bigint, (c) => c.notNull())
        .addColumn('discount_cents', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('extra_info', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('create_time', t.bigint, (c) => c.notNull())
        .addColumn('payment_time', t.bigint)
        .addColumn('expire_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('prepay_orders_active_expiry').on('prepay_orders').columns(['status', 'expire_at']).execute();
      await db.schema.createIndex('prepay_orders_sub_merchant').on('prepay_orders').columns(['sub_merchant_id', 'create_time']).execute();
    },
  };
}
