/**
 * Daily statement reconciliation (5.2, docs/reconciliation.md): downloads a channel's trade bill of
 * a China date, reads it strictly, keeps its lines and matches them with the kit's orders and refunds
 * in both directions. A payment or refund the channel finished and the kit did not is confirmed with
 * the channel and settled through the notification path (one transition, one callback); the other
 * differences are kept for a person, a kit-only line first waits for the next day's bill. A run that
 * cannot have or read the bill changes nothing; running a day again changes nothing either.
 */
import type { Logger } from 'pino';
import { formatCents, formatDecimal, isKitError, KitError } from '@kit/shared';
import type { ReconciliationTotals } from '@kit/shared/api/reconciliation';
import type { Providers } from '../payments/providers/in-use';
import { FEE_SCALE, type BillDownload, type BillLine, type ChannelName, type PaymentProvider, type StoredParams } from '../payments/providers/provider';
import type { ChannelOrders } from '../payments/channel-orders';
import type { PaymentStore } from '../payments/payment-store';
import type { Settlement } from '../payments/settlement';
import type { DuplicateStore } from '../payments/duplicate-store';
import type { Metrics } from '../metrics/metrics';
import { addDays, chinaDayRange, isChinaDate } from './china-day';
import { isPaidLine, isRefundedLine, match, type Found, type KitDay, type View } from './matcher';
import { withDuplicateRefunds } from './duplicate-refunds';
import type { DifferenceRow, ReconStore, ReportRow } from './recon-store';
import type { DifferenceKind, Resolution } from './recon-tables';

type Bill = Extract<BillDownload, { kind: 'bill' }>;
type BillingProvider = PaymentProvider & Required<Pick<PaymentProvider, 'dailyBill'>>;

export type ReportTotals = ReconciliationTotals;

export interface ReportDifference {
  kind: DifferenceKind;
  outTradeNo: string;
  outRefundNo?: string;
  prepayId?: string;
  kit: View | null;
  channel: View | null;
  resolution: Resolution;
}

export interface Report {
  date: string;
  channel: string;
  state: 'done';
  totals: ReportTotals;
  differences: ReportDifference[];
}

export interface ReportSummary {
  date: string;
  channel: string;
  state: ReportRow['state'];
  error?: string;
  differences: number;
  open: number;
}

export interface MerchantReportSummary extends ReportSummary {
  byKind: Partial<Record<DifferenceKind, number>>;
  byResolution: Partial<Record<Resolution, number>>;
}

/** The bill is not there yet: try again later. */
export class BillNotReady extends KitError {
  constructor(message: string) {
    super('channel_unavailable', message);
  }
}

const FEE_UNITS_PER_CENT = 10 ** (FEE_SCALE - 2);

export class ReconciliationService {
  /** The service's clock (the days a run may reconcile, its times). */
  get clock() {
    return this.store.clock;
  }

  constructor(
    private readonly store: ReconStore,
    private readonly providers: Providers,
    private readonly payments: PaymentStore,
    private readonly channelOrders: ChannelOrders,
    private readonly settlement: Settlement,
    private readonly log: Logger,
    private readonly metrics?: Pick<Metrics, 'statementDifference' | 'reconciledDay'>,
    /** Second payments refunded automatically: their refunds are the kit's too (`duplicate-refunds.ts`). */
    private readonly duplicates?: DuplicateStore,
  ) {}

  /** The channels that publish a bill (the card acquirer does not). */
  channelsWithBills(): ChannelName[] {
    return this.providers.with('dailyBill').map((p) => p.channel);
  }

  /**
   * Reconciles `date` (China date) with `channel`'s bill now. Throws `BillNotReady` while the channel
   * is making it, `channel_error` when it cannot be read; the report is then not `done`.
   */
  async reconcile(date: string, channel: ChannelName): Promise<Report> {
    if (!isChinaDate(date)) throw new KitError('invalid_request', `date must be a China date written YYYY-MM-DD, got "${date}"`);
    const provider = this.providers.get(channel);
    if (!provider.dailyBill) throw new KitError('channel_unavailable', `payment channel ${channel} publishes no bill`);
    const gateway = provider as BillingProvider;
    await this.store.startRun(date, channel);
    let bill: Bill | null;
    try {
      bill = await this.download(gateway, date);
    } catch (e) {
      await this.store.endRunWithoutBill(date, channel, e instanceof BillNotReady ? 'pending' : 'failed', (e as Error).message);
      throw e;
    }
    const lines = bill?.lines ?? [];
    const own = await this.kitSide(channel, date, lines);
    const kit = this.duplicates ? await withDuplicateRefunds(own, this.duplicates, channel, date, lines) : own;
    const found = match(lines, kit);
    await this.record(gateway, date, channel, lines, found);
    await this.confirmWithChannel(gateway, date);
    await this.store.db.transaction().execute((trx) => this.store.finishRun(trx, date, channel, JSON.stringify(totalsOf(bill)), bill !== null));
    this.metrics?.reconciledDay(channel, chinaDayRange(date).from);
    const report = (await this.report(date, channel))!;
    for (const d of report.differences) {
      if (d.resolution === 'open') this.log.error({ date, channel, difference: d }, `reconciliation: open ${d.kind} difference; see docs/reconciliation.md`);
    }
    return report;
  }

  /** The stored report of a day, once done; `visible` keeps only the differences a caller may see. */
  async report(date: string, channel: string, visible?: (d: DifferenceRow) => boolean): Promise<Report | null> {
    const row = await this.store.report(date, channel);
    if (!row || row.state !== 'done' || !row.totals_json) return null;
    const diffs = (await this.store.differences(date, channel)).filter((d) => !visible || visible(d));
    return { date, channel, state: 'done', totals: JSON.parse(row.totals_json) as ReportTotals, differences: diffs.map(toReportDifference) };
  }

  /** Every channel's done report of a day. */
  async reportsOf(date: string, visible?: (d: DifferenceRow) => boolean): Promise<Report[]> {
    const out: Report[] = [];
    for (const channel of this.channelsWithBills()) {
      const r = await this.report(date, channel, visible);
      if (r) out.push(r);
    }
    return out;
  }

  /**
   * `GET /reconciliation/<date>`: each channel's done report of the day, with the differences of the
   * app's own merchants only (the bill's totals cover every merchant of the account, so they stay out).
   */
  async forApp(appId: string, date: string): Promise<{ date: string; reports: Array<{ channel: string; state: 'done'; differences: ReportDifference[] }> }> {
    const reports = await this.reportsOf(date, await this.visibility(appId));
    if (!reports.length) throw new KitError('not_found', `${date} has not been reconciled (yet)`);
    return { date, reports: reports.map((r) => ({ channel: r.channel, state: r.state, differences: r.differences })) };
  }

  /**
   * `GET /reconciliation`: the days' reports, newest first, with how many differences of the app's
   * own merchants each has and how many of those are open (what the console lists).
   */
  async listForApp(appId: string, limit: number, before?: string): Promise<ReportSummary[]> {
    return (await this.summaries(await this.visibility(appId), limit, before)).map(({ byKind: _k, byResolution: _r, ...s }) => s);
  }

  /** The console's list: like `listForApp` for the given merchants, with their differences counted by kind and resolution. */
  async listForMerchants(merchantIds: readonly string[], limit: number, before?: string): Promise<MerchantReportSummary[]> {
    return this.summaries(await this.merchantVisibility(merchantIds), limit, before);
  }

  /**
   * The console's day: each channel's done report with the given merchants' differences, and the
   * totals of their share of the bill (the bill's own totals cover every merchant of the account);
   * `not_found` until reconciled.
   */
  async forMerchants(merchantIds: readonly string[], date: string): Promise<Report[]> {
    const accounts = await this.accountsOf(merchantIds);
    const reports = await this.reportsOf(date, visibleBy({ merchantIds: new Set(merchantIds), channelMchIds: accounts }));
    if (!reports.length) throw new KitError('not_found', `${date} has not been reconciled (yet)`);
    return Promise.all(reports.map(async (r) => ({ ...r, totals: await this.totalsOfMerchants(date, r.channel, merchantIds, accounts) })));
  }

  private async totalsOfMerchants(date: string, channel: string, merchantIds: readonly string[], accounts: Set<string>): Promise<ReportTotals> {
    const bill = (this.providers.get(channel) as BillingProvider).dailyBill;
    const lines = (await this.store.billLinesOf(date, channel, merchantIds, [...accounts])).filter((l) => bill.settled(l.kind, l.status));
    const sum = (kind: 'payment' | 'refund') => lines.filter((l) => l.kind === kind).reduce((n, l) => n + Number(l.amount_cents), 0);
    const feeCents = Math.round(lines.reduce((n, l) => n + Number(l.fee_units), 0) / FEE_UNITS_PER_CENT);
    return {
      payments: { count: lines.filter((l) => l.kind === 'payment').length, amount: formatCents(sum('payment')) },
      refunds: { count: lines.filter((l) => l.kind === 'refund').length, amount: formatCents(sum('refund')) },
      fees: formatCents(feeCents),
      net: formatDecimal(sum('payment') - sum('refund') - feeCents, 2),
    };
  }

  private async summaries(visible: (d: DifferenceRow) => boolean, limit: number, before?: string): Promise<MerchantReportSummary[]> {
    const out: MerchantReportSummary[] = [];
    for (const r of await this.store.reports(limit, before)) {
      const mine = r.state === 'done' ? (await this.store.differences(r.day, r.channel)).filter(visible) : [];
      const byKind: MerchantReportSummary['byKind'] = {};
      const byResolution: MerchantReportSummary['byResolution'] = {};
      for (const d of mine) {
        byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
        byResolution[d.resolution] = (byResolution[d.resolution] ?? 0) + 1;
      }
      out.push({
        date: r.day,
        channel: r.channel,
        state: r.state,
        ...((r.state === 'failed' || r.state === 'pending') && r.error ? { error: r.error } : {}),
        differences: mine.length,
        open: byResolution.open ?? 0,
        byKind,
        byResolution,
      });
    }
    return out;
  }

  private async visibility(appId: string): Promise<(d: DifferenceRow) => boolean> {
    return this.merchantVisibility(await this.store.ownedBy(appId));
  }

  /**
   * The given merchants' differences: by the order's sub-merchant, or (a line the kit does not know)
   * by the account its bill line names, which the providers read from the merchants' parameters.
   */
  private async merchantVisibility(merchantIds: readonly string[]): Promise<(d: DifferenceRow) => boolean> {
    return visibleBy({ merchantIds: new Set(merchantIds), channelMchIds: await this.accountsOf(merchantIds) });
  }

  /** The merchants' accounts at the channels, as their payment parameters name them. */
  private async accountsOf(merchantIds: readonly string[]): Promise<Set<string>> {
    const accounts = new Set<string>();
    for (const { channel, params } of await this.store.paramsOf(merchantIds)) {
      const provider = this.providers.has(channel) ? this.providers.get(channel) : undefined;
      const account = provider?.accountOf?.(params as StoredParams);
      if (account) accounts.add(account);
    }
    return accounts;
  }

  private async download(provider: BillingProvider, date: string): Promise<Bill | null> {
    const merchants = (await this.store.paramsOfChannel(provider.channel)) as StoredParams[];
    const got = await provider.dailyBill.download(date, merchants);
    if (got.kind === 'not_ready') throw new BillNotReady(`the ${provider.channel} bill of ${date} is not ready yet (${got.why})`);
    return got.kind === 'none' ? null : got;
  }

  private async kitSide(channel: string, date: string, lines: readonly BillLine[]): Promise<KitDay> {
    const { from, to } = chinaDayRange(date);
    const tradeNos = [...new Set(lines.filter(isPaidLine).map((l) => l.orderNo))];
    const refundNos = [...new Set(lines.filter(isRefundedLine).map((l) => l.refundNo!))];
    const orders = (await this.store.channelOrders(tradeNos)).filter((o) => o.channel === channel);
    const refunds = (await this.store.refunds(refundNos)).filter((r) => r.channel === channel);
    return {
      orders: new Map(orders.map((o) => [o.out_trade_no, o])),
      refunds: new Map(refunds.map((r) => [r.out_refund_no, r])),
      paid: await this.store.paidBetween(channel, from, to),
      refunded: await this.store.refundedBetween(channel, from, to),
    };
  }

  /** Keeps the bill's lines and what was found, and decides the previous day's carried lines, in one transaction. */
  private async record(provider: BillingProvider, date: string, channel: string, lines: readonly BillLine[], found: Found[]): Promise<void> {
    const now = this.store.clock.now();
    const counted: Array<[DifferenceKind, Resolution]> = [];
    await this.store.db.transaction().execute(async (trx) => {
      // Holds the day's report row: a second run of the same day (the kit command while the daily job
      // runs) waits here instead of writing the same lines at the same time.
      await this.store.touch(trx, date, channel);
      await this.store.replaceLines(
        trx,
        date,
        channel,
        lines.map((l) => ({
          day: date,
          channel,
          line_no: l.lineNo,
          kind: l.kind,
          out_trade_no: l.orderNo,
          out_refund_no: l.refundNo,
          status: l.status,
          amount_cents: l.amountCents,
          fee_units: l.feeUnits,
          transaction_id: l.transactionId,
          refund_id: l.refundId,
          sub_mch_id: l.subAccount,
          time: l.time,
        })),
      );
      const known = new Set((await this.store.differences(date, channel, trx)).map(keyOf));
      for (const f of found) {
        const row = {
          day: date,
          channel,
          kind: f.kind,
          out_trade_no: f.outTradeNo,
          out_refund_no: f.outRefundNo ?? '',
          prepay_id: f.prepayId,
          sub_merchant_id: f.subMerchantId,
          channel_mch_id: f.channelMchId,
          kit_json: JSON.stringify(f.kit),
          channel_json: JSON.stringify(f.channel),
          resolution: (f.kind === 'kit_only' ? 'pending_next_day' : 'open') as Resolution,
          created_at: now,
          updated_at: now,
        };
        if (known.has(keyOf(row))) continue;
        await this.store.addDifference(trx, row);
        counted.push([row.kind, row.resolution]);
      }
      // The previous day's kit-only lines were waiting for this bill.
      const inBill = new Set(lines.filter((l) => isPaidLine(l) || isRefundedLine(l)).map((l) => (l.kind === 'refund' ? `r:${l.refundNo}` : `p:${l.orderNo}`)));
      for (const d of await this.store.differences(addDays(date, -1), channel, trx)) {
        if (d.kind !== 'kit_only' || d.resolution !== 'pending_next_day') continue;
        const to = inBill.has(d.out_refund_no ? `r:${d.out_refund_no}` : `p:${d.out_trade_no}`) ? 'found_next_day' : 'open';
        if (await this.store.resolve(trx, d, 'pending_next_day', to, now)) counted.push(['kit_only', to]);
      }
      // When the next day was reconciled first, its bill decides this day's kit-only lines now.
      const next = await this.store.report(addDays(date, 1), channel, trx);
      if (next?.state === 'done') {
        const nextLines = await trx
          .selectFrom('recon_bill_lines')
          .select(['kind', 'out_trade_no', 'out_refund_no', 'status'])
          .where('day', '=', addDays(date, 1))
          .where('channel', '=', channel)
          .execute();
        const nextBill = new Set(
          nextLines
            .filter((l) => provider.dailyBill.settled(l.kind, l.status))
            .map((l) => (l.kind === 'refund' ? `r:${l.out_refund_no}` : `p:${l.out_trade_no}`)),
        );
        for (const d of await this.store.differences(date, channel, trx)) {
          if (d.kind !== 'kit_only' || d.resolution !== 'pending_next_day') continue;
          const to = nextBill.has(d.out_refund_no ? `r:${d.out_refund_no}` : `p:${d.out_trade_no}`) ? 'found_next_day' : 'open';
          if (await this.store.resolve(trx, d, 'pending_next_day', to, now)) counted.push(['kit_only', to]);
        }
      }
    });
    for (const [kind, resolution] of counted) this.metrics?.statementDifference(channel, kind, resolution);
  }

  /**
   * Every open `status_mismatch` of the day: the channel is asked (order or refund query) and what it
   * confirms is settled like a notification. A run that stopped half-way, or a channel that could
   * not answer, is taken up again by the next run of the day.
   */
  private async confirmWithChannel(gateway: PaymentProvider, date: string): Promise<void> {
    for (const d of await this.store.differences(date, gateway.channel)) {
      if (d.kind !== 'status_mismatch' || d.resolution !== 'open') continue;
      try {
        const to = d.out_refund_no ? await this.confirmRefund(gateway, d) : await this.confirmPayment(gateway, d);
        if (to && (await this.store.resolve(this.store.db, d, 'open', to))) this.metrics?.statementDifference(gateway.channel, d.kind, to);
      } catch (e) {
        if (!isKitError(e)) throw e;
        this.log.warn(
          { date, outTradeNo: d.out_trade_no, outRefundNo: d.out_refund_no || undefined, err: e.message },
          'reconciliation: the channel could not confirm',
        );
      }
    }
  }

  private async confirmPayment(provider: PaymentProvider, d: DifferenceRow): Promise<Resolution | null> {
    const co = await this.payments.channelOrder(d.out_trade_no);
    if (!co) return null;
    if (co.state === 'paid') return 'settled';
    // A payment code the kit cancelled (7.4) never counts as paid: the bill showing it paid without its reversal is a person's to look at.
    if (co.state === 'cancelled') return null;
    const q = await provider.queryOrder(co);
    if (!q.ok || (q.state !== 'paid' && q.state !== 'refunded')) return null;
    await this.channelOrders.recordQueriedPayment(co, q, 'reconciliation');
    this.log.info({ prepayId: co.prepay_id, outTradeNo: co.out_trade_no }, 'reconciliation: payment found in the bill, confirmed and recorded');
    return 'settled';
  }

  private async confirmRefund(provider: PaymentProvider, d: DifferenceRow): Promise<Resolution | null> {
    const refund = await this.payments.refundByNumber(d.out_refund_no);
    if (!refund) return null;
    if (refund.state === 'success') return 'refunded';
    const co = await this.payments.channelOrder(refund.out_trade_no);
    if (!co) return null;
    const q = await provider.queryRefund(refund, co);
    if (!q.ok || !q.listed || q.state !== 'succeeded' || q.amountCents !== refund.refund_cents) return null;
    await this.settlement.completeRefund(refund, q.refundId);
    this.log.info({ prepayId: refund.prepay_id, outRefundNo: refund.out_refund_no }, 'reconciliation: refund found in the bill, confirmed and recorded');
    return 'refunded';
  }
}

/** A difference is a merchant's by the order's sub-merchant, or (a line the kit does not know) by the channel account of the bill line. */
function visibleBy({ merchantIds, channelMchIds }: { merchantIds: Set<string>; channelMchIds: Set<string> }): (d: DifferenceRow) => boolean {
  return (d) => (d.sub_merchant_id ? merchantIds.has(d.sub_merchant_id) : !!d.channel_mch_id && channelMchIds.has(d.channel_mch_id));
}

function keyOf(d: Pick<DifferenceRow, 'kind' | 'out_trade_no' | 'out_refund_no'>): string {
  return `${d.kind}\n${d.out_trade_no}\n${d.out_refund_no}`;
}

function toReportDifference(d: DifferenceRow): ReportDifference {
  return {
    kind: d.kind,
    outTradeNo: d.out_trade_no,
    ...(d.out_refund_no ? { outRefundNo: d.out_refund_no } : {}),
    ...(d.prepay_id ? { prepayId: d.prepay_id } : {}),
    kit: JSON.parse(d.kit_json) as View | null,
    channel: JSON.parse(d.channel_json) as View | null,
    resolution: d.resolution,
  };
}

/** The bill's totals; a day without a bill has none of anything. */
function totalsOf(bill: Bill | null): ReportTotals {
  const paid = bill?.lines.filter(isPaidLine) ?? [];
  const refunded = bill?.lines.filter(isRefundedLine) ?? [];
  const s = bill?.summary;
  const feeCents = Math.round((s?.feeUnits ?? 0) / FEE_UNITS_PER_CENT);
  return {
    payments: { count: paid.length, amount: formatCents(paid.reduce((n, l) => n + l.amountCents, 0)) },
    refunds: { count: refunded.length, amount: formatCents(refunded.reduce((n, l) => n + l.amountCents, 0)) },
    fees: formatCents(feeCents),
    net: formatDecimal((s?.settledCents ?? 0) - (s?.refundCents ?? 0) - feeCents, 2),
  };
}
