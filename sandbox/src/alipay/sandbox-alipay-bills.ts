/**
 * The Alipay stand-in's trade bills (docs/sandbox.md): `alipay.data.dataservice.bill.downloadurl.query`
 * answers a link to a ZIP, made from the trades and refunds the stand-in holds, that expires 30
 * seconds after it was handed out, as Alipay's does. The ZIP holds the day's detail
 * (`<account>_<yyyyMMdd>_业务明细.csv`) and its summary (`…_业务明细(汇总).csv`), GBK text with
 * GBK names (no UTF-8 flag), as Alipay writes them, in Alipay's layout (`bill-layout.ts`, written
 * apart from the kit's reader). A day that has begun has a bill of what happened so
 * far (Alipay waits for the next morning; the sandbox does not, so that anyone can watch
 * reconciliation at once); a day to come, or a day without trade for the merchant, has none
 * (`isp.bill_not_exist`). The bill faults of the sandbox apply: lines left out or changed,
 * payments the kit never saw, a bill not made yet, or an archive cut short.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { formatCents } from '@kit/shared';
import { dashedTime } from '../protocol/china-time';
import { DETAIL_CLOSE, DETAIL_COLUMNS, DETAIL_OPEN, SUMMARY_CLOSE, SUMMARY_COLUMNS, SUMMARY_OPEN } from './bill-layout';

/** How long a link works, from when it was handed out. */
export const BILL_LINK_TTL_MS = 30_000;

const DAY_MS = 86_400_000;
const CST_OFFSET_MS = 8 * 3_600_000;

/** The sandbox charges 0.60 % (in whole cents, rounded half up), and gives it back with a refund. */
const feeOf = (cents: number) => Math.floor((cents * 6 + 500) / 1000);

/** What a bill needs of a trade the stand-in holds. */
export interface BillTrade {
  tradeNo: string;
  outTradeNo: string;
  subject: string;
  createdAt: number;
  paidAt?: number;
  buyerOpenId?: string;
  totalCents: number;
  refunds: ReadonlyMap<string, { cents: number; at: number }>;
}

/** The sandbox's bill faults (`sandbox-faults.ts`), as far as Alipay's bills take them. */
export interface AlipayBillFaults {
  billExtraPayments?: number;
  billAmountChanged?: readonly string[];
  billOmitted?: readonly string[];
  bills?: 'ready' | 'creating' | 'truncated';
}

interface Row {
  kind: 'payment' | 'refund';
  tradeNo: string;
  outTradeNo: string;
  subject: string;
  createdAt: number;
  doneAt: number;
  buyer: string;
  /** Signed: a refund's is negative. */
  cents: number;
  requestNo: string;
}

/** The Alipay account (PID and its `0156` suffix, as bill names write it) the sandbox gives a merchant's authorization. */
export function sandboxAlipayAccount(appAuthToken: string): string {
  const digits = BigInt(`0x${createHash('sha256').update(appAuthToken).digest('hex').slice(0, 15)}`)
    .toString()
    .padStart(12, '0')
    .slice(-12);
  return `2088${digits}0156`;
}

export class SandboxAlipayBills {
  private readonly links = new Map<string, { zip: Buffer; expiresAt: number }>();

  constructor(
    private readonly now: () => number,
    private readonly faults: () => AlipayBillFaults = () => ({}),
  ) {}

  /**
   * The link to a merchant's bill of `date` (`yyyy-MM-dd`), under `base` (the stand-in's URL), or
   * null when there is no bill: a day to come, a day without trade, a bill not made yet (fault).
   */
  link(appAuthToken: string, date: string, trades: readonly BillTrade[], base: string): string | null {
    const now = this.now();
    for (const [id, l] of this.links) if (l.expiresAt <= now) this.links.delete(id);
    const from = Date.parse(`${date}T00:00:00Z`) - CST_OFFSET_MS;
    if (from > now || this.faults().bills === 'creating') return null;
    const rows = this.rows(appAuthToken, date, from, trades);
    if (!rows) return null;
    let zip = billZip(sandboxAlipayAccount(appAuthToken), date, rows, now);
    if (this.faults().bills === 'truncated') zip = zip.subarray(0, Math.floor(zip.length / 2));
    const id = randomBytes(12).toString('hex');
    this.links.set(id, { zip, expiresAt: now + BILL_LINK_TTL_MS });
    const day = date.replaceAll('-', '');
    const query = new URLSearchParams({
      bizType: 'trade',
      userId: sandboxAlipayAccount(appAuthToken).slice(0, 16),
      fileType: 'csv.zip',
      bizDates: day,
      downloadFileName: `${sandboxAlipayAccount(appAuthToken)}_${day}.csv.zip`,
      fileId: id,
      timestamp: String(now),
    });
    return `${base}/downloadBillFile.resource?${query}`;
  }

  /** The archive of a link handed out, or null once it has expired (or never was). */
  file(fileId: string): Buffer | null {
    const l = this.links.get(fileId);
    if (!l || l.expiresAt <= this.now()) return null;
    return l.zip;
  }

  private rows(appAuthToken: string, date: string, from: number, trades: readonly BillTrade[]): Row[] | null {
    const to = from + DAY_MS;
    const f = this.faults();
    const omitted = new Set(f.billOmitted ?? []);
    const changed = new Set(f.billAmountChanged ?? []);
    const rows: Row[] = [];
    for (const t of trades) {
      const base = { tradeNo: t.tradeNo, outTradeNo: t.outTradeNo, subject: t.subject, createdAt: t.createdAt, buyer: t.buyerOpenId ?? '' };
      if (t.paidAt !== undefined && t.paidAt >= from && t.paidAt < to && !omitted.has(t.outTradeNo))
        rows.push({ ...base, kind: 'payment', doneAt: t.paidAt, cents: t.totalCents + (changed.has(t.outTradeNo) ? 1 : 0), requestNo: '' });
      for (const [requestNo, r] of t.refunds) {
        if (r.at >= from && r.at < to && !omitted.has(requestNo)) rows.push({ ...base, kind: 'refund', doneAt: r.at, cents: -r.cents, requestNo });
      }
    }
    if (!rows.length) return null;
    // Payments the kit never saw, the same ones for the same merchant and day.
    for (let i = 1; i <= (f.billExtraPayments ?? 0); i++) {
      const n = createHash('sha256').update(`${appAuthToken}/${date}/${i}`).digest('hex');
      const at = from + 12 * 3_600_000;
      rows.push({
        kind: 'payment',
        tradeNo: `${date.replaceAll('-', '')}2200${BigInt(`0x${n.slice(0, 15)}`)
          .toString()
          .padStart(18, '0')
          .slice(-18)}`,
        outTradeNo: `SBXONLY${date.replaceAll('-', '')}${n.slice(0, 8)}`,
        subject: 'paid elsewhere (sandbox fault)',
        createdAt: at,
        doneAt: at,
        buyer: 'sandbox_alipay_buyer',
        cents: 100 + i,
        requestNo: '',
      });
    }
    return rows.sort((a, b) => a.doneAt - b.doneAt);
  }
}

/** The bill's ZIP: the detail and the summary, GBK. */
export function billZip(account: string, date: string, rows: readonly Row[], now: number): Buffer {
  const day = date.replaceAll('-', '');
  return writeZip([
    { name: `${account}_${day}_业务明细.csv`, data: iconv.encode(detailCsv(account, date, rows, now), 'gbk') },
    { name: `${account}_${day}_业务明细(汇总).csv`, data: iconv.encode(summaryCsv(account, date, rows, now), 'gbk') },
  ]);
}

const yuan = formatCents;
/** `yyyy年MM月dd日 HH:mm:ss`, China time. */
const chineseTime = (ms: number) => dashedTime(ms).replace(/^(\d{4})-(\d{2})-(\d{2})/, '$1年$2月$3日');

function head(title: string, account: string, date: string): string[] {
  const from = Date.parse(`${date}T00:00:00Z`) - CST_OFFSET_MS;
  return [title, `#账号：[${account}]`, `#起始日期：[${chineseTime(from)}]   终止日期：[${chineseTime(from + DAY_MS)}]`];
}

/** A data row: every value followed by a tab, a value holding a comma or a quote quoted. */
function csvRow(values: readonly string[]): string {
  return values.map((v) => (/[",]/.test(v) ? `"${`${v}\t`.replaceAll('"', '""')}"` : `${v}\t`)).join(',');
}

function detailCsv(account: string, date: string, rows: readonly Row[], now: number): string {
  const lines = [...head('#支付宝业务明细查询', account, date), DETAIL_OPEN, DETAIL_COLUMNS.join(',')];
  for (const r of rows) {
    const fee = r.kind === 'payment' ? -feeOf(r.cents) : feeOf(-r.cents);
    const values: Record<(typeof DETAIL_COLUMNS)[number], string> = {
      支付宝交易号: r.tradeNo,
      商户订单号: r.outTradeNo,
      业务类型: r.kind === 'payment' ? '交易' : '退款',
      商品名称: r.subject,
      创建时间: dashedTime(r.createdAt),
      完成时间: dashedTime(r.doneAt),
      门店编号: '',
      门店名称: '',
      操作员: '',
      终端号: '',
      对方账户: r.buyer,
      '订单金额（元）': yuan(r.cents),
      '商家实收（元）': yuan(r.cents),
      '支付宝红包（元）': '0.00',
      '集分宝（元）': '0.00',
      '支付宝优惠（元）': '0.00',
      '商家优惠（元）': '0.00',
      '券核销金额（元）': '0.00',
      券名称: '',
      '商家红包消费金额（元）': '0.00',
      '卡消费金额（元）': '0.00',
      '退款批次号/请求号': r.requestNo,
      '服务费（元）': yuan(fee),
      '分润（元）': '0.00',
      备注: '',
    };
    lines.push(csvRow(DETAIL_COLUMNS.map((c) => values[c])));
  }
  const payments = rows.filter((r) => r.kind === 'payment');
  const refunds = rows.filter((r) => r.kind === 'refund');
  const sum = (rs: readonly Row[]) => rs.reduce((n, r) => n + r.cents, 0);
  lines.push(
    DETAIL_CLOSE,
    `#交易合计：${payments.length}笔，商家实收共${yuan(sum(payments))}元，商家优惠共0.00元`,
    `#退款合计：${refunds.length}笔，商家实收退款共${yuan(sum(refunds))}元，商家优惠退款共0.00元`,
    `#导出时间：[${chineseTime(now)}]`,
  );
  return `${lines.join('\r\n')}\r\n`;
}

function summaryCsv(account: string, date: string, rows: readonly Row[], now: number): string {
  const received = rows.reduce((n, r) => n + r.cents, 0);
  const fee = rows.reduce((n, r) => n + (r.kind === 'payment' ? -feeOf(r.cents) : feeOf(-r.cents)), 0);
  const totals = [
    String(rows.filter((r) => r.kind === 'payment').length),
    String(rows.filter((r) => r.kind === 'refund').length),
    yuan(received),
    yuan(received),
    '0.00',
    '0.00',
    '0.00',
    yuan(fee),
    '0.00',
    yuan(received + fee),
  ];
  // One shop (none named: the kit names no shops), then the 合计 row.
  const lines = [
    ...head('#支付宝业务汇总查询', account, date),
    SUMMARY_OPEN,
    SUMMARY_COLUMNS.join(','),
    csvRow(['', '', ...totals]),
    csvRow(['合计', '', ...totals]),
  ];
  lines.push(SUMMARY_CLOSE, `#导出时间：[${chineseTime(now)}]`);
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A ZIP archive (PKWARE APPNOTE 4.3) of deflated entries, their names in GBK without the UTF-8 flag
 * as Alipay's archives name them.
 */
export function writeZip(entries: ReadonlyArray<{ name: string; data: Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = iconv.encode(e.name, 'gbk');
    const data = deflateRawSync(e.data);
    const crc = crc32(e.data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: deflate
    local.writeUInt16LE(0, 6); // flags: no UTF-8 name, no data descriptor
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(0, 10); // DOS time and date: not kept
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
