import type { Clock } from '@kit/shared/clock';
import type { Kysely } from 'kysely';
import type { Database, MerchantsTable } from '../db/schema';
import { prepared } from '../db/prepared';

export class MerchantStore {
  private readonly withParentRow;
  // Every callback reads its merchant and payment parameters (prepared once: docs/performance.md).
  private readonly findRow;
  private readonly effectiveParamsRows;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {
    this.withParentRow = prepared(db, (id: string) => this.withParentQuery(id), 1);
    this.findRow = prepared(db, (id: string) => db.selectFrom('merchants').selectAll().where('id', '=', id), 1);
    this.effectiveParamsRows = prepared(
      db,
      (id: string, channel: string) =>
        db
          .selectFrom('merchants as m')
          .leftJoin('payment_params as p', (j) =>
            j
              .on('p.channel', '=', channel)
              .on((eb) => eb.or([eb('p.merchant_id', '=', eb.ref('m.id')), eb('p.merchant_id', '=', eb.ref('m.parent_merchant_id'))])),
          )
          .select(['m.parent_merchant_id', 'p.merchant_id', 'p.params_json'])
          .where('m.id', '=', id),
      2,
    );
  }

  insert(row: MerchantsTable): Promise<unknown> {
    return this.db.insertInto('merchants').values(row).execute();
  }

  async find(id: string): Promise<MerchantsTable | undefined> {
    return (await this.findRow(id))[0];
  }

  /** A sub-merchant with its parent's owner, display name and state, in one read (prepared: every order creation reads it). */
  async findWithParent(id: string) {
    return (await this.withParentRow(id))[0];
  }

  private withParentQuery(id: string) {
    return this.db
      .selectFrom('merchants as m')
      .leftJoin('merchants as p', 'p.id', 'm.parent_merchant_id')
      .select([
        'm.id',
        'm.kind',
        'm.display_name',
        'm.disabled',
        'm.app_id',
        'm.parent_merchant_id',
        'm.profit_sharing_contracted',
        'p.app_id as parent_app_id',
        'p.disabled as parent_disabled',
        'p.profit_sharing_contracted as parent_profit_sharing_contracted',
      ])
      .where('m.id', '=', id);
  }

  setContracted(id: string, contracted: boolean): Promise<unknown> {
    return this.db
      .updateTable('merchants')
      .set({ profit_sharing_contracted: contracted ? 1 : 0 })
      .where('id', '=', id)
      .execute();
  }

  setDisabled(id: string, disabled: boolean): Promise<unknown> {
    return this.db
      .updateTable('merchants')
      .set({ disabled: disabled ? 1 : 0 })
      .where('id', '=', id)
      .execute();
  }

  insertLoginToken(tokenHash: string, merchantId: string, now: number): Promise<unknown> {
    return this.db.insertInto('login_tokens').values({ token_hash: tokenHash, merchant_id: merchantId, created_at: now }).execute();
  }

  deleteLoginToken(tokenHash: string): Promise<unknown> {
    return this.db.deleteFrom('login_tokens').where('token_hash', '=', tokenHash).execute();
  }

  /** The merchant a login token belongs to, with its parent, when both are enabled. */
  findByLoginToken(tokenHash: string) {
    return this.db
      .selectFrom('login_tokens as t')
      .innerJoin('merchants as m', 'm.id', 't.merchant_id')
      .select(['m.id', 'm.kind', 'm.display_name', 'm.parent_merchant_id', 'm.disabled', 'm.app_id'])
      .where('t.token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  /**
   * Applies `merge` to a merchant's own parameters of one channel (compare and set, so two changes
   * at the same moment on any instance both apply). `merge` sees the stored object and returns the new one.
   */
  async mergePaymentParams(
    merchantId: string,
    channel: string,
    merge: (current: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    await this.db
      .insertInto('payment_params')
      .values({ merchant_id: merchantId, channel, params_json: '{}', updated_at: this.clock.now() })
      .onConflict((oc) => oc.columns(['merchant_id', 'channel']).doNothing())
      .execute();
    for (;;) {
      const row = await this.db
        .selectFrom('payment_params')
        .select('params_json')
        .where('merchant_id', '=', merchantId)
        .where('channel', '=', channel)
        .executeTakeFirstOrThrow();
      const next = merge(JSON.parse(row.params_json) as Record<string, unknown>);
      const res = await this.db
        .updateTable('payment_params')
        .set({ params_json: JSON.stringify(next), updated_at: this.clock.now() })
        .where('merchant_id', '=', merchantId)
        .where('channel', '=', channel)
        .where('params_json', '=', row.params_json)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) return next;
    }
  }

  /**
   * A merchant's parent and the channel parameters of both, in one read (one row per parameter set,
   * or one row without parameters; none when the merchant does not exist): every callback and every
   * channel order needs them, and on PostgreSQL each read is a round trip.
   */
  paramsWithParent(id: string, channel: string) {
    return this.effectiveParamsRows(id, channel);
  }

  /** The sub-merchants of a parent merchant, by id. */
  children(parentId: string) {
    return this.db.selectFrom('merchants').select(['id', 'display_name']).where('parent_merchant_id', '=', parentId).orderBy('id').execute();
  }
}
