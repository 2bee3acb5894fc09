/**
 * Alipay's daily trade bill as the kit reads it (5.2, docs/reconciliation.md). Alipay keeps one bill
 * per merchant: for each authorization of the merchants paying through Alipay (each distinct
 * `appAuthToken` of their payment parameters), `alipay.data.dataservice.bill.downloadurl.query`
 * with `bill_type: trade` answers a link that expires in 30 seconds, downloaded at once: a ZIP of
 * the detail and its summary (`trade-bill.ts`). The merchants' bills make the channel's bill of the
 * day, their lines numbered in order.
 *
 * A day's bill is there from the next morning, China time (`BILL_READY_AT`). No bill
 * (`isp.bill_not_exist`) before then means "ask again later"; after it, a merchant without trade
 * that day. A bill that cannot be read, or whose summary does not add up to its detail, refuses the
 * whole day (`channel_error`) with what broke, so a half-read bill never reaches the books.
 */
import { systemClock, type Clock } from '@kit/shared/clock';
import { createHash } from 'node:crypto';
import { KitError, type ChannelParams } from '@kit/shared';
import { parseChinaTime } from '../china-time';
import type { BillDownload, BillLine, DailyBill, StoredParams } from '../provider';
import type { AlipayClient } from './client';
import { AlipayError } from './errors';
import { AlipayBillFormatError, PAYMENT_TYPE, readAlipayBillFiles, REFUND_TYPE, type AlipayBillFile } from './trade-bill';
import { readZip, ZipFormatError } from './zip-reader';

/** When the bill of a day is there: 09:00 China time the next day. */
export const BILL_READY_AT = { days: 1, hour: 9 };

/** Fees are kept in 1/100000 yuan (`FEE_SCALE`); Alipay's are whole cents. */
const FEE_UNITS_PER_CENT = 1000;

/**
 * The account the kit names an Alipay merchant's bill lines with: a digest of its authorization
 * (the token itself is a secret, write-only like a password), the same from the payment parameters
 * and from the bill downloaded with them.
 */
export function alipayAccountOf(params: StoredParams): string | undefined {
  const token = (params as Partial<ChannelParams['Alipay']>).appAuthToken;
  return token ? `auth-${createHash('sha256').update(token).digest('hex').slice(0, 16)}` : undefined;
}

/** A bill line counts when it is a payment (`交易`) or a refund (`退款`): the detail lists done ones only. */
const settled = (kind: 'payment' | 'refund', status: string) => status === (kind === 'payment' ? PAYMENT_TYPE : REFUND_TYPE);

export interface AlipayBillOptions {
  /** Fetches a link Alipay handed out (`fetch` by default). */
  fetchFile?: (url: string, timeoutMs: number, clock: Clock) => Promise<{ status: number; body: Buffer }>;
  timeoutMs: number;
  /** The service's clock (the system clock by default). */
  clock?: Clock;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

const fetchFile = async (url: string, timeoutMs: number, clock: Clock) => {
  const res = await fetch(url, { headers: { accept: '*/*', 'user-agent': 'merchant-kit' }, signal: clock.timeout(timeoutMs) });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
};

export function alipayDailyBill(client: () => AlipayClient, opts: AlipayBillOptions): DailyBill {
  const clock = opts.clock ?? systemClock;
  const now = () => clock.now();
  const get = opts.fetchFile ?? fetchFile;

  /** One merchant's bill of `date`, or whether there is none (yet). */
  async function merchantBill(token: string, date: string): Promise<AlipayBillFile | 'none' | 'not_ready'> {
    const account = alipayAccountOf({ appAuthToken: token } as StoredParams)!;
    let answer;
    try {
      answer = await client().billDownloadUrl(token, date);
    } catch (e) {
      if (!(e instanceof AlipayError)) throw e;
      // Network, HTTP or an unreadable answer: ask again later; a refusal (a withdrawn authorization…) needs a person.
      throw new KitError(e.retryable ? 'channel_unavailable' : 'channel_error', `the Alipay bill of ${date} of merchant ${account}: ${e.message}`);
    }
    if (!answer.ready) return now() >= readyAt(date) ? 'none' : 'not_ready';
    // The link expires 30 s after it was handed out: fetched now, before anything else.
    let file: { status: number; body: Buffer };
    try {
      const url = new URL(answer.url);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`not an HTTP link: ${url.protocol}`);
      file = await get(url.toString(), Math.max(opts.timeoutMs, 30_000), clock);
    } catch (e) {
      throw new KitError('channel_unavailable', `the Alipay bill of ${date} of merchant ${account} could not be downloaded: ${(e as Error).message}`);
    }
    opts.log?.info({ channel: 'Alipay', date, merchant: account, status: file.status, bytes: file.body.length }, 'Alipay bill downloaded');
    if (file.status !== 200) throw new KitError('channel_unavailable', `the Alipay bill link of ${date} of merchant ${account} answered HTTP ${file.status}`);
    try {
      const bill = readFiles(file.body);
      if (bill.date !== date) throw new AlipayBillFormatError(`the file is the bill of ${bill.date}, not of ${date}`);
      return bill;
    } catch (e) {
      if (e instanceof AlipayBillFormatError || e instanceof ZipFormatError)
        throw new KitError('channel_error', `the Alipay bill of ${date} of merchant ${account} cannot be read: ${e.message}`);
      throw e;
    }
  }

  return {
    settled,
    async download(date: string, merchants: readonly StoredParams[]): Promise<BillDownload> {
      const tokens = [...new Set(merchants.map((p) => (p as Partial<ChannelParams['Alipay']>).appAuthToken).filter((t): t is string => !!t))].sort();
      const lines: BillLine[] = [];
      const summary = { settledCents: 0, refundCents: 0, feeUnits: 0 };
      let bills = 0;
      for (const token of tokens) {
        const got = await merchantBill(token, date);
        if (got === 'not_ready') return { kind: 'not_ready', why: `Alipay makes the bill of a day by ${BILL_READY_AT.hour}:00 China time the next day` };
        if (got === 'none') continue;
        bills++;
        const account = alipayAccountOf({ appAuthToken: token } as StoredParams)!;
        for (const r of got.rows) {
          lines.push({
            lineNo: lines.length + 1,
            kind: r.kind,
            time: r.time,
            orderNo: r.outTradeNo,
            refundNo: r.outRequestNo,
            transactionId: r.tradeNo,
            refundId: r.kind === 'refund' ? r.tradeNo : null,
            subAccount: got.account,
            account,
            status: r.type,
            settled: true,
            amountCents: r.amountCents,
            // What the merchant pays: Alipay writes the fee negative, and gives it back (positive) with a refund.
            feeUnits: -r.feeCents * FEE_UNITS_PER_CENT,
          });
          if (r.kind === 'payment') summary.settledCents += r.receivedCents;
          else summary.refundCents -= r.receivedCents;
        }
        summary.feeUnits -= got.totals.feeCents * FEE_UNITS_PER_CENT;
      }
      return bills ? { kind: 'bill', lines, summary } : { kind: 'none' };
    },
  };
}

/** Unix ms from which the bill of `date` is there. */
function readyAt(date: string): number {
  const start = parseChinaTime(`${date.replaceAll('-', '')}000000`);
  if (start === null) throw new TypeError(`not a date: ${date}`);
  return start + (BILL_READY_AT.days * 24 + BILL_READY_AT.hour) * 3_600_000;
}

/** The detail and the summary out of the ZIP, decoded from GBK. */
function readFiles(zip: Buffer): AlipayBillFile {
  const entries = readZip(zip, { maxEntries: 8, maxBytes: 256 * 1024 * 1024 });
  const detail = entries.filter((e) => e.name.endsWith('_业务明细.csv'));
  const summary = entries.filter((e) => e.name.endsWith('_业务明细(汇总).csv'));
  if (detail.length !== 1 || summary.length !== 1)
    throw new AlipayBillFormatError(`the archive holds ${entries.map((e) => e.name).join(', ') || 'nothing'}, not one detail (…_业务明细.csv) and its summary`);
  return readAlipayBillFiles(detail[0].data, summary[0].data);
}
