/** SQL of reconciliation: reports, the bill lines they read, differences; and the kit's side of a day. */
import type { Clock } from '@kit/shared/clock';
import type { Kysely, Selectable } from 'kysely';
import type { Database, Executor } from '../db/schema';
import type { ReconBillLinesTable, ReconDifferencesTable, ReconReportsTable, Resolution } from './recon-tables';

export type ReportRow = Selectable<ReconReportsTable>;
export type DifferenceRow = Selectable<ReconDifferencesTable>;

export class ReconStore {
  constructor(
    readonly db: Kysely<Database>,
    readonly clock: Clock,
  ) {}

  report(day: string, channel: string, on: Executor = this.db) {
    return on.selectFrom('recon_reports').selectAll().where('day', '=', day).where('channel', '=', channel).executeTakeFirst();
  }

  /** Reports, newest day first. */
  reports(limit: number, before?: string) {
    let q = this.db.selectFrom('recon_reports').selectAll().orderBy('day', 'desc').orderBy('channel').limit(limit);
    if (before) q = q.where('day', '<', before);
    return q.execute();
  }

  /** Starts a run of a day (a report row `running`, or back to `running`); a `done` report stays done until the run ends. */
  async startRun(day: string, channel: string, now = this.clock.now()): Promise<void> {
    await this.db
      .insertInto('recon_reports')
      .values({ day, channel, state: 'running', totals_json: null, had_bill: 0, error: null, runs: 1, created_at: now, updated_at: now, done_at: null })
      .onConflict((oc) => oc.columns(['day', 'channel']).doUpdateSet((eb) => ({ runs: eb('recon_reports.runs', '+', 1), updated_at: now })))
      .execute();
  }

  /**
   * A run that did not get the bill: `pending` while the channel has not made it yet, `failed` when
   * it could not be had or read. A report that was never done says why; a done one stays as it was.
   */
  async endRunWithoutBill(day: string, channel: string, state: 'pending' | 'failed', error: string, now = this.clock.now()): Promise<void> {
    await this.db
      .updateTable('recon_reports')
      .set({ state, error, updated_at: now })
      .where('day', '=', day)
      .where('channel', '=', channel)
      .where('state', '!=', 'done')
      .execute();
  }

  async finishRun(on: Executor, day: string, channel: string, totalsJson: string, hadBill: boolean, now = this.clock.now()): Promise<void> {
    await on
      .updateTable('recon_reports')
      .set({ state: 'done', totals_json: totalsJson, had_bill: hadBill ? 1 : 0, error: null, updated_at: now, done_at: now })
      .where('day', '=', day)
      .where('channel', '=', channel)
      .execute();
  }

  /** Writes the report row (on PostgreSQL this holds it until the transaction ends). */
  async touch(on: Executor, day: string, channel: string, now = this.clock.now()): Promise<void> {
    await on.updateTable('recon_reports').set({ updated_at: now }).where('day', '=', day).where('channel', '=', channel).execute();
  }

  /** Keeps the lines of the day's bill, replacing those of an earlier run. */
  async replaceLines(on: Executor, day: string, channel: string, lines: ReconBillLinesTable[]): Promise<void> {
    await on.deleteFrom('recon_bill_lines').where('day', '=', day).where('channel', '=', channel).execute();
    for (let i = 0; i < lines.length; i += 200)
      await on
        .insertInto('recon_bill_lines')
        .values(lines.slice(i, i + 200))
        .execute();
  }

  differences(day: string, channel?: string, on: Executor = this.db) {
    let q = on.selectFrom('recon_differences').selectAll().where('day', '=', day);
    if (channel) q = q.where('channel', '=', channel);
    return q.orderBy('channel').orderBy('kind').orderBy('out_trade_no').orderBy('out_refund_no').execute();
  }

  /**
   * Records a difference once: a run that finds it again keeps what the first found and how it was
   * resolved, so re-running a day changes nothing.
   */
  async addDifference(on: Executor, row: ReconDifferencesTable): Promise<void> {
    await on
      .insertInto('recon_differences')
      .values(row)
      .onConflict((oc) => oc.columns(['day', 'channel', 'kind', 'out_trade_no', 'out_refund_no']).doNothing())
      .execute();
  }

  async resolve(
    on: Executor,
    key: Pick<DifferenceRow, 'day' | 'channel' | 'kind' | 'out_trade_no' | 'out_refund_no'>,
    from: Resolution,
    to: Resolution,
    now = this.clock.now(),
  ): Promise<boolean> {
    const res = await on
      .updateTable('recon_differences')
      .set({ resolution: to, updated_at: now })
      .where('day', '=', key.day)
      .where('channel', '=', key.channel)
      .where('kind', '=', key.kind)
      .where('out_trade_no', '=', key.out_trade_no)
      .where('out_refund_no', '=', key.out_refund_no)
      .where('resolution', '=', from)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** The merchants an app owns, and the sub-merchants of a parent it owns (whose differences it may read). */
  async ownedBy(appId: string): Promise<string[]> {
    const owned = await this.db
      .selectFrom('merchants as m')
      .leftJoin('merchants as p', 'p.id', 'm.parent_merchant_id')
      .select('m.id')
      .where((eb) => eb.or([eb('m.app_id', '=', appId), eb('p.app_id', '=', appId)]))
      .execute();
    return owned.map((m) => m.id);
  }

  /** The stored payment parameters of the given merchants, every channel (what names their accounts at the channels). */
  async paramsOf(merchantIds: readonly string[]): Promise<Array<{ channel: string; params: Record<string, unknown> }>> {
    if (!merchantIds.length) return [];
    const rows = await inChunks([...merchantIds], (ids) =>
      this.db.selectFrom('payment_params').select(['channel', 'params_json']).where('merchant_id', 'in', ids).execute(),
    );
    return rows.map((r) => ({ channel: r.channel, params: JSON.parse(r.params_json) as Record<string, unknown> }));
  }

  /**
   * A day's bill lines of some merchants: the lines of their orders, and the lines the kit has no
   * order for that name one of their accounts at the channel.
   */
  billLinesOf(day: string, channel: string, merchantIds: readonly string[], accounts: readonly string[]) {
    if (!merchantIds.length && !accounts.length) return Promise.resolve([]);
    return this.db
      .selectFrom('recon_bill_lines as l')
      .leftJoin('pay_channel_orders as c', 'c.out_trade_no', 'l.out_trade_no')
      .leftJoin('prepay_orders as o', 'o.prepay_id', 'c.prepay_id')
      .select(['l.kind', 'l.status', 'l.amount_cents', 'l.fee_units'])
      .where('l.day', '=', day)
      .where('l.channel', '=', channel)
      .where((eb) =>
        eb.or([
          ...(merchantIds.length ? [eb('o.sub_merchant_id', 'in', [...merchantIds])] : []),
          ...(accounts.length ? [eb.and([eb('o.prepay_id', 'is', null), eb('l.sub_mch_id', 'in', [...accounts])])] : []),
        ]),
      )
      .execute();
  }

  /** Every merchant's stored payment parameters of a channel (a channel with one bill per merchant downloads one for each). */
  async paramsOfChannel(channel: string): Promise<Array<Record<string, unknown>>> {
    const rows = await this.db.selectFrom('payment_params').select('params_json').where('channel', '=', channel).orderBy('merchant_id').execute();
    return rows.map((r) => JSON.parse(r.params_json) as Record<string, unknown>);
  }

  // ---- the kit's side ---------------------------------------------------------------------

  /** Channel orders of a channel paid in `[from, to)`, with their prepay order's state and merchant. */
  paidBetween(channel: string, from: number, to: number) {
    return this.db
      .selectFrom('pay_channel_orders as c')
      .innerJoin('prepay_orders as o', 'o.prepay_id', 'c.prepay_id')
      .select(['c.out_trade_no', 'c.prepay_id', 'c.state', 'c.total_cents', 'o.status', 'o.sub_merchant_id'])
      .where('c.channel', '=', channel)
      .where('c.state', '=', 'paid')
      .where('c.paid_at', '>=', from)
      .where('c.paid_at', '<', to)
      .execute();
  }

  /** Refunds of a channel completed in `[from, to)`. */
  refundedBetween(channel: string, from: number, to: number) {
    return this.db
      .selectFrom('pay_refunds as r')
      .innerJoin('prepay_orders as o', 'o.prepay_id', 'r.prepay_id')
      .select(['r.out_trade_no', 'r.out_refund_no', 'r.prepay_id', 'r.state', 'r.refund_cents', 'o.sub_merchant_id'])
      .where('r.channel', '=', channel)
      .where('r.state', '=', 'success')
      .where('r.completed_at', '>=', from)
      .where('r.completed_at', '<', to)
      .execute();
  }

  /** The kit's channel orders named by a bill, with their prepay order's state. */
  channelOrders(outTradeNos: string[]) {
    return inChunks(outTradeNos, (ids) =>
      this.db
        .selectFrom('pay_channel_orders as c')
        .innerJoin('prepay_orders as o', 'o.prepay_id', 'c.prepay_id')
        .select(['c.out_trade_no', 'c.prepay_id', 'c.channel', 'c.state', 'c.total_cents', 'o.status', 'o.sub_merchant_id'])
        .where('c.out_trade_no', 'in', ids)
        .execute(),
    );
  }

  refunds(outRefundNos: string[]) {
    return inChunks(outRefundNos, (ids) =>
      this.db
        .selectFrom('pay_refunds as r')
        .innerJoin('prepay_orders as o', 'o.prepay_id', 'r.prepay_id')
        .select(['r.out_trade_no', 'r.out_refund_no', 'r.prepay_id', 'r.channel', 'r.state', 'r.refund_cents', 'o.sub_merchant_id'])
        .where('r.out_refund_no', 'in', ids)
        .execute(),
    );
  }
}

/** A bill names thousands of ids: asked 500 at a time, so no statement outgrows a driver's parameter limit. */
async function inChunks<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += 500) out.push(...(await query(ids.slice(i, i + 500))));
  return out;
}
