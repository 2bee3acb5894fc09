/** SQL of profit sharing: receivers, the sharing state of each order, and every split or finish. */
import type { Clock } from '@kit/shared/clock';
import { sql, type Kysely } from 'kysely';
import type { ReceiverType } from '@kit/shared';
import type { Database, Executor } from '../db/schema';
import type { PsOrderState, PsOrdersTable, PsReceiversTable, PsRequestState, PsRequestsTable } from './ps-tables';

export class PsStore {
  constructor(
    readonly db: Kysely<Database>,
    readonly clock: Clock,
  ) {}

  // ---- receivers ------------------------------------------------------------------------------

  /** Adds a receiver, or updates and revives one added before. */
  async upsertReceiver(row: PsReceiversTable): Promise<void> {
    await this.db
      .insertInto('ps_receivers')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['merchant_id', 'type', 'account']).doUpdateSet({
          name: row.name,
          relation_type: row.relation_type,
          custom_relation: row.custom_relation,
          updated_at: row.updated_at,
          removed_at: null,
        }),
      )
      .execute();
  }

  async removeReceiver(merchantId: string, type: ReceiverType, account: string, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('ps_receivers')
      .set({ removed_at: now, updated_at: now })
      .where('merchant_id', '=', merchantId)
      .where('type', '=', type)
      .where('account', '=', account)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Receivers in use for the given merchants (a sub-merchant and its parent). */
  activeReceivers(merchantIds: string[]) {
    return this.db.selectFrom('ps_receivers').selectAll().where('merchant_id', 'in', merchantIds).where('removed_at', 'is', null).execute();
  }

  /** The sub-merchants of a parent merchant (none for a sub-merchant). */
  async subMerchantIds(merchantId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('merchants').select('id').where('parent_merchant_id', '=', merchantId).execute();
    return rows.map((r) => r.id);
  }

  channelReceivers(channelMchId: string) {
    return this.db.selectFrom('ps_channel_receivers').selectAll().where('channel_mch_id', '=', channelMchId).execute();
  }

  async noteChannelReceiver(channelMchId: string, type: ReceiverType, account: string): Promise<void> {
    await this.db
      .insertInto('ps_channel_receivers')
      .values({ channel_mch_id: channelMchId, type, account, added_at: this.clock.now() })
      .onConflict((oc) => oc.columns(['channel_mch_id', 'type', 'account']).doNothing())
      .execute();
  }

  async forgetChannelReceiver(channelMchId: string, type: ReceiverType, account: string): Promise<boolean> {
    const res = await this.db
      .deleteFrom('ps_channel_receivers')
      .where('channel_mch_id', '=', channelMchId)
      .where('type', '=', type)
      .where('account', '=', account)
      .executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  }

  // ---- orders and requests ----------------------------------------------------------------------

  order(prepayId: string, on: Executor = this.db): Promise<PsOrdersTable | undefined> {
    return on.selectFrom('ps_orders').selectAll().where('prepay_id', '=', prepayId).executeTakeFirst();
  }

  /** The order's sharing row, created empty the first time. */
  async ensureOrder(on: Executor, prepayId: string, totalCents: number, maxShareCents: number, now: number): Promise<void> {
    await on
      .insertInto('ps_orders')
      .values({
        prepay_id: prepayId,
        total_cents: totalCents,
        max_share_cents: maxShareCents,
        shared_cents: 0,
        state: 'open',
        unfrozen_at: null,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('prepay_id').doNothing())
      .execute();
  }

  /**
   * Reserves `cents` of the order's share in one conditional update, so that concurrent splits on
   * any instance can never take more than the maximum together; optionally finishes its sharing.
   */
  async reserve(on: Executor, prepayId: string, cents: number, finish: boolean, now: number): Promise<boolean> {
    const res = await on
      .updateTable('ps_orders')
      .set({ shared_cents: sql`shared_cents + ${cents}`, updated_at: now, ...(finish ? { state: 'finished' as PsOrderState } : {}) })
      .where('prepay_id', '=', prepayId)
      .where('state', '=', 'open')
      .where(sql<boolean>`shared_cents + ${cents} <= max_share_cents`)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Gives back share that was not shared after all (refused, or closed receivers). */
  async release(on: Executor, prepayId: string, cents: number, now: number): Promise<void> {
    if (cents <= 0) return;
    await on
      .updateTable('ps_orders')
      .set({ shared_cents: sql`shared_cents - ${cents}`, updated_at: now })
      .where('prepay_id', '=', prepayId)
      .execute();
  }

  async setOrderState(on: Executor, prepayId: string, from: PsOrderState, to: PsOrderState, now: number): Promise<boolean> {
    const res = await on
      .updateTable('ps_orders')
      .set({ state: to, updated_at: now })
      .where('prepay_id', '=', prepayId)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async markUnfrozen(on: Executor, prepayId: string, now: number): Promise<void> {
    await on.updateTable('ps_orders').set({ unfrozen_at: now, updated_at: now }).where('prepay_id', '=', prepayId).where('unfrozen_at', 'is', null).execute();
  }

  insertRequest(on: Executor, row: PsRequestsTable): Promise<unknown> {
    return on.insertInto('ps_requests').values(row).execute();
  }

  request(id: string, on: Executor = this.db): Promise<PsRequestsTable | undefined> {
    return on.selectFrom('ps_requests').selectAll().where('id', '=', id).executeTakeFirst();
  }

  requestByNumber(prepayId: string, outOrderNo: string): Promise<PsRequestsTable | undefined> {
    return this.db.selectFrom('ps_requests').selectAll().where('prepay_id', '=', prepayId).where('out_order_no', '=', outOrderNo).executeTakeFirst();
  }

  requestsOf(prepayIds: string[]) {
    if (prepayIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('ps_requests').selectAll().where('prepay_id', 'in', prepayIds).orderBy('created_at').execute();
  }

  ordersOf(prepayIds: string[]) {
    if (prepayIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('ps_orders').selectAll().where('prepay_id', 'in', prepayIds).execute();
  }

  /**
   * When the order's latest request was accepted. Read after `reserve` has locked the order's
   * sharing row, so that a request's `created_at` is strictly later than every earlier one's: the
   * order in which requests were accepted, which is the order they must reach the channel in.
   */
  async lastRequestAt(on: Executor, prepayId: string): Promise<number> {
    const row = await on
      .selectFrom('ps_requests')
      .select((eb) => eb.fn.max('created_at').as('at'))
      .where('prepay_id', '=', prepayId)
      .executeTakeFirst();
    return Number(row?.at ?? 0);
  }

  /** The earliest request of the order accepted before `r` that has not reached the channel yet. */
  earlierRequesting(r: Pick<PsRequestsTable, 'id' | 'prepay_id' | 'created_at'>, on: Executor = this.db) {
    return on
      .selectFrom('ps_requests')
      .select(['id', 'updated_at'])
      .where('prepay_id', '=', r.prepay_id)
      .where('state', '=', 'requesting')
      .where((eb) => eb.or([eb('created_at', '<', r.created_at), eb.and([eb('created_at', '=', r.created_at), eb('id', '<', r.id)])]))
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
  }

  /** The next request of the order accepted after `r` that has not reached the channel yet. */
  laterRequesting(r: Pick<PsRequestsTable, 'id' | 'prepay_id' | 'created_at'>, on: Executor = this.db) {
    return on
      .selectFrom('ps_requests')
      .select(['id', 'prepay_id'])
      .where('prepay_id', '=', r.prepay_id)
      .where('state', '=', 'requesting')
      .where((eb) => eb.or([eb('created_at', '>', r.created_at), eb.and([eb('created_at', '=', r.created_at), eb('id', '>', r.id)])]))
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
  }

  /** Moves a request between states if it is in one of `from`; true when this call did it. */
  async moveRequest(
    on: Executor,
    id: string,
    from: PsRequestState[],
    to: PsRequestState,
    patch: Partial<Pick<PsRequestsTable, 'receivers_json' | 'channel_order_id' | 'last_error'>> = {},
    now = this.clock.now(),
  ): Promise<boolean> {
    const res = await on
      .updateTable('ps_requests')
      .set({ state: to, updated_at: now, ...patch })
      .where('id', '=', id)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Takes over a request still `requesting` and unchanged since `seenUpdatedAt` (compare and set). */
  async takeOverRequest(id: string, seenUpdatedAt: number, now = this.clock.now()): Promise<boolean> {
    const res = await this.db
      .updateTable('ps_requests')
      .set({ updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'requesting')
      .where('updated_at', '=', seenUpdatedAt)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async noteRequestError(id: string, error: string): Promise<void> {
    await this.db.updateTable('ps_requests').set({ last_error: error }).where('id', '=', id).execute();
  }
}
