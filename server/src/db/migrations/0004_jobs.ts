import { sql, type Kysely } from 'kysely';
import { columnTypes, type Dialect } from '../dialect';

/**
 * One job table for all background work (merchant callbacks, sandbox notifications, payment and
 * refund reconciliation). The two queues of 0002 move into it with their history; channel orders
 * and refunds still in flight get their reconciliation jobs, so an upgraded service converges too.
 */
export function jobs(dialect: Dialect) {
  const t = columnTypes(dialect);
  const json = (pairs: Array<[string, string]>) =>
    sql.raw(
      dialect === 'postgres'
        ? `json_build_object(${pairs.map(([k, col]) => `'${k}', ${col}`).join(', ')})::text`
        : `json_object(${pairs.map(([k, col]) => `'${k}', ${col}`).join(', ')})`,
    );
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('jobs')
        .addColumn('id', t.serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('queue', 'text', (c) => c.notNull())
        .addColumn('key', 'text')
        .addColumn('ref', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('result', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_at', t.bigint, (c) => c.notNull())
        .addColumn('lease_token', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('done_at', t.bigint)
        .execute();
      await db.schema.createIndex('jobs_key').unique().on('jobs').columns(['queue', 'key']).execute();
      // Workers only look at pending jobs: a partial index keeps the claim query off finished ones.
      await db.schema.createIndex('jobs_due').on('jobs').columns(['queue', 'next_at']).where(sql.ref('state'), '=', sql.lit('pending')).execute();
      await db.schema.createIndex('jobs_ref').on('jobs').columns(['ref']).execute();

      // Callbacks keep their ids, so that their recorded attempts still point at them.
      await sql`
        insert into jobs (id, queue, key, ref, payload, state, result, attempts, next_at, lease_token, last_error, created_at, updated_at, done_at)
        select id, 'callback', event_key, prepay_id,
          ${json([
            ['prepayId', 'prepay_id'],
            ['status', 'status'],
            ['subMerchantId', 'sub_merchant_id'],
            ['merchantId', 'merchant_id'],
            ['ownerAppId', 'owner_app_id'],
            ['channel', 'channel'],
          ])},
          case state when 'pending' then 'pending' when 'delivered' then 'done' else 'failed' end,
          case state when 'pending' then null else state end,
          attempts, next_attempt_at, null, last_error, created_at, coalesce(delivered_at, created_at), delivered_at
        from callback_outbox`.execute(db);
      if (dialect === 'postgres') {
        await sql`select setval(pg_get_serial_sequence(current_schema() || '.jobs', 'id'), greatest((select max(id) from jobs), 1))`.execute(db);
      }
      await db.schema.alterTable('callback_attempts').renameColumn('outbox_id', 'job_id').execute();

      await sql`
        insert into jobs (queue, key, ref, payload, state, result, attempts, next_at, lease_token, last_error, created_at, updated_at, done_at)
        select 'sandbox.notify', null, ref,
          ${json([
            ['kind', 'kind'],
            ['url', 'url'],
            ['body', 'body'],
            ['duplicatesLeft', 'duplicates_left'],
          ])},
          'pending', null, attempts, next_at, null, null, created_at, created_at, null
        from sandbox_notifications where state = 'pending'`.execute(db);

      const now = Date.now();
      await sql`
        insert into jobs (queue, key, ref, payload, state, result, attempts, next_at, lease_token, last_error, created_at, updated_at, done_at)
        select 'payment.reconcile', out_trade_no, prepay_id, '{}', 'pending', null, 0, ${now}, null, null, ${now}, ${now}, null
        from pay_channel_orders where state in ('creating', 'open')`.execute(db);
      await sql`
        insert into jobs (queue, key, ref, payload, state, result, attempts, next_at, lease_token, last_error, created_at, updated_at, done_at)
        select 'refund.follow', prepay_id, prepay_id, '{}', 'pending', null, 0, ${now}, null, null, ${now}, ${now}, null
        from pay_refunds where state in ('requesting', 'accepted')`.execute(db);

      await db.schema.dropTable('callback_outbox').execute();
      await db.schema.dropTable('sandbox_notifications').execute();
    },
  };
}
