/**
 * Alipay's trade bill (`bill_type: trade`) of one merchant and day, as its ZIP holds it: two GBK CSV
 * files, the detail (`<account>_<yyyyMMdd>_业务明细.csv`) and its summary (`…_业务明细(汇总).csv`).
 *
 * The detail: comment lines starting with `#` (the title `#支付宝业务明细查询`, `#账号：[…]`, the
 * period `#起始日期：[…]   终止日期：[…]`), the list's opening rule `#----…业务明细列表----…`, the
 * column header row, one row per payment (业务类型 `交易`) and per refund (`退款`), the closing rule
 * `#----…业务明细列表结束----…`, then the trailer: `#交易合计：N笔，商家实收共X元，…`,
 * `#退款合计：N笔，商家实收退款共X元，…` and `#导出时间：[…]`. Every value is followed by a tab (so
 * that spreadsheets keep long numbers as text); a value holding a comma is quoted. Amounts are yuan
 * with two decimals, refunds written negative, the service fee (服务费) negative where the merchant
 * pays it. The summary: the same comment lines (`#支付宝业务汇总查询`), `#----…业务汇总列表----…`,
 * its header, one row per shop and the `合计` row, `#----…业务汇总列表结束----…`, `#导出时间：[…]`.
 *
 * The reader is strict: anything it does not understand, and any total of the summary or the
 * trailer that the detail does not add up to, refuses the bill with the line that broke it, so a
 * half-read or inconsistent bill never reaches the books. The sandbox's stand-in writes its bills
 * by a layout of its own (`sandbox/src/alipay/bill-layout.ts`), so that the two are checked against
 * each other.
 */
import { AmountError, formatCents, parseDecimal } from '@kit/shared';

export const DETAIL_COLUMNS = [
  '支付宝交易号',
  '商户订单号',
  '业务类型',
  '商品名称',
  '创建时间',
  '完成时间',
  '门店编号',
  '门店名称',
  '操作员',
  '终端号',
  '对方账户',
  '订单金额（元）',
  '商家实收（元）',
  '支付宝红包（元）',
  '集分宝（元）',
  '支付宝优惠（元）',
  '商家优惠（元）',
  '券核销金额（元）',
  '券名称',
  '商家红包消费金额（元）',
  '卡消费金额（元）',
  '退款批次号/请求号',
  '服务费（元）',
  '分润（元）',
  '备注',
] as const;

export const SUMMARY_COLUMNS = [
  '门店编号',
  '门店名称',
  '交易订单总笔数',
  '退款订单总笔数',
  '订单金额（元）',
  '商家实收（元）',
  '支付宝优惠（元）',
  '商家优惠（元）',
  '卡消费金额（元）',
  '服务费（元）',
  '分润（元）',
  '实收净额（元）',
] as const;

/** 业务类型 of a payment and of a refund. */
export const PAYMENT_TYPE = '交易';
export const REFUND_TYPE = '退款';

/** The rules around the lists, as Alipay draws them (the reader accepts any number of dashes). */
export const DETAIL_OPEN = '#-----------------------------------------业务明细列表----------------------------------------';
export const DETAIL_CLOSE = '#-----------------------------------------业务明细列表结束------------------------------------';
export const SUMMARY_OPEN = '#-----------------------------------------业务汇总列表----------------------------------------';
export const SUMMARY_CLOSE = '#----------------------------------------业务汇总列表结束-------------------------------------';

export class AlipayBillFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AlipayBillFormatError';
  }
}

export interface AlipayBillRow {
  /** 1-based line number in the detail file. */
  lineNo: number;
  kind: 'payment' | 'refund';
  /** 业务类型, as written. */
  type: string;
  tradeNo: string;
  outTradeNo: string;
  /** 退款批次号/请求号 of a refund (the kit's `out_request_no`); null for a payment. */
  outRequestNo: string | null;
  /** 完成时间, `yyyy-MM-dd HH:mm:ss` China time. */
  time: string;
  /** 订单金额 of a payment; the refunded amount of a refund (written negative), in cents. */
  amountCents: number;
  /** 商家实收, signed as written (a refund's is negative), in cents. */
  receivedCents: number;
  /** 服务费, signed as written (negative: the merchant pays it), in cents. */
  feeCents: number;
  /** 分润, signed as written, in cents. */
  splitCents: number;
}

export interface AlipayBillFile {
  /** The Alipay account the bill is of (`#账号：[…]`). */
  account: string;
  /** The China date the bill covers (`#起始日期：[yyyy年MM月dd日 00:00:00]`), as `yyyy-MM-dd`. */
  date: string;
  rows: AlipayBillRow[];
  /** The summary's 合计 row. */
  totals: AlipayBillTotals;
}

export interface AlipayBillTotals {
  payments: number;
  refunds: number;
  orderCents: number;
  receivedCents: number;
  feeCents: number;
  splitCents: number;
  netCents: number;
}

/** Reads a merchant's bill from its two files as downloaded (GBK bytes). */
export function readAlipayBillFiles(detail: Buffer, summary: Buffer): AlipayBillFile {
  return readAlipayBill(gbk(detail, 'the detail'), gbk(summary, 'the summary'));
}

function gbk(data: Buffer, what: string): string {
  try {
    return new TextDecoder('gbk', { fatal: true }).decode(data);
  } catch {
    throw new AlipayBillFormatError(`${what} is not GBK text`);
  }
}

/** Reads a merchant's bill from the texts of its two files, and checks the summary against the detail. */
export function readAlipayBill(detailText: string, summaryText: string): AlipayBillFile {
  const detail = readDetail(detailText);
  const summary = readSummary(summaryText);
  if (summary.account !== detail.account) throw new AlipayBillFormatError(`the summary is of account ${summary.account}, the detail of ${detail.account}`);
  if (summary.date !== detail.date) throw new AlipayBillFormatError(`the summary is of ${summary.date}, the detail of ${detail.date}`);
  const fromDetail = totalsOf(detail.rows);
  const t = summary.totals;
  const differ: string[] = [];
  const compare = (what: string, summaryValue: number, detailValue: number, money = true) => {
    if (summaryValue !== detailValue)
      differ.push(`${what}: summary ${money ? formatCents(summaryValue) : summaryValue}, detail ${money ? formatCents(detailValue) : detailValue}`);
  };
  compare('交易订单总笔数', t.payments, fromDetail.payments, false);
  compare('退款订单总笔数', t.refunds, fromDetail.refunds, false);
  compare('订单金额', t.orderCents, fromDetail.orderCents);
  compare('商家实收', t.receivedCents, fromDetail.receivedCents);
  compare('服务费', t.feeCents, fromDetail.feeCents);
  compare('分润', t.splitCents, fromDetail.splitCents);
  compare('实收净额', t.netCents, t.receivedCents + t.feeCents + t.splitCents);
  if (differ.length) throw new AlipayBillFormatError(`the summary's totals are not the detail's: ${differ.join('; ')}`);
  return { account: detail.account, date: detail.date, rows: detail.rows, totals: t };
}

function totalsOf(rows: readonly AlipayBillRow[]): AlipayBillTotals {
  const sum = (f: (r: AlipayBillRow) => number) => rows.reduce((n, r) => n + f(r), 0);
  const received = sum((r) => r.receivedCents);
  const fee = sum((r) => r.feeCents);
  const split = sum((r) => r.splitCents);
  return {
    payments: rows.filter((r) => r.kind === 'payment').length,
    refunds: rows.filter((r) => r.kind === 'refund').length,
    orderCents: sum((r) => (r.kind === 'refund' ? -r.amountCents : r.amountCents)),
    receivedCents: received,
    feeCents: fee,
    splitCents: split,
    netCents: received + fee + split,
  };
}

interface Lines {
  lines: string[];
  /** 0-based index of the next line to read. */
  at: number;
}

const fail = (lineNo: number, why: string): never => {
  throw new AlipayBillFormatError(`line ${lineNo}: ${why}`);
};

function linesOf(text: string): Lines {
  // The files are written with CRLF; a last line may end the file without one.
  const lines = text.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return { lines, at: 0 };
}

function next(l: Lines, what: string): string {
  if (l.at >= l.lines.length) fail(l.at + 1, `the file ends where ${what} was expected (cut short?)`);
  return l.lines[l.at++];
}

/** The title, account and period lines both files open with. */
function readHead(l: Lines, title: string): { account: string; date: string } {
  const first = next(l, title);
  if (first.replace(/^\uFEFF/, '').trim() !== title) fail(1, `expected "${title}", found "${clip(first)}"`);
  const account = /^#账号：\[(\d{16,28})\]\s*$/.exec(next(l, 'the account line'));
  if (!account) fail(2, 'expected "#账号：[<account>]"');
  const period = /^#起始日期：\[(\d{4})年(\d{2})月(\d{2})日 00:00:00\]\s+终止日期：\[(\d{4})年(\d{2})月(\d{2})日 00:00:00\]\s*$/.exec(
    next(l, 'the period line'),
  );
  if (!period) fail(3, 'expected "#起始日期：[yyyy年MM月dd日 00:00:00]   终止日期：[…]"');
  const date = `${period![1]}-${period![2]}-${period![3]}`;
  const end = `${period![4]}-${period![5]}-${period![6]}`;
  if (new Date(`${date}T00:00:00Z`).getTime() + 86_400_000 !== new Date(`${end}T00:00:00Z`).getTime()) fail(3, `the period ${date} – ${end} is not one day`);
  return { account: account![1], date };
}

const rule = (name: string) => new RegExp(`^#-+${name}-+\\s*$`);

function readDetail(text: string): { account: string; date: string; rows: AlipayBillRow[] } {
  const l = linesOf(text);
  const head = readHead(l, '#支付宝业务明细查询');
  if (!rule('业务明细列表').test(next(l, 'the list'))) fail(l.at, 'expected the rule opening 业务明细列表');
  expectHeader(l, DETAIL_COLUMNS);
  const rows: AlipayBillRow[] = [];
  const close = rule('业务明细列表结束');
  for (;;) {
    const line = next(l, 'the rule closing 业务明细列表');
    if (close.test(line)) break;
    if (line.startsWith('#')) fail(l.at, `unexpected comment "${clip(line)}" inside the list`);
    rows.push(detailRow(line, l.at));
  }
  // The trailer: the counts and amounts of each kind, checked against the rows.
  const payments = rows.filter((r) => r.kind === 'payment');
  const refunds = rows.filter((r) => r.kind === 'refund');
  const tradeTotal = /^#交易合计：(\d+)笔，商家实收共(-?\d+\.\d{2})元，商家优惠共(-?\d+\.\d{2})元\s*$/.exec(next(l, 'the 交易合计 line'));
  if (!tradeTotal) fail(l.at, 'expected "#交易合计：N笔，商家实收共X元，商家优惠共Y元"');
  const refundTotal = /^#退款合计：(\d+)笔，商家实收退款共(-?\d+\.\d{2})元，商家优惠退款共(-?\d+\.\d{2})元\s*$/.exec(next(l, 'the 退款合计 line'));
  if (!refundTotal) fail(l.at, 'expected "#退款合计：N笔，商家实收退款共X元，商家优惠退款共Y元"');
  const received = (rs: AlipayBillRow[]) => rs.reduce((n, r) => n + r.receivedCents, 0);
  if (Number(tradeTotal![1]) !== payments.length || yuan(tradeTotal![2], l.at - 1) !== received(payments))
    fail(l.at - 1, `交易合计 says ${tradeTotal![1]} payments, ${tradeTotal![2]} yuan; the list has ${payments.length}, ${formatCents(received(payments))}`);
  if (Number(refundTotal![1]) !== refunds.length || yuan(refundTotal![2], l.at) !== received(refunds))
    fail(l.at, `退款合计 says ${refundTotal![1]} refunds, ${refundTotal![2]} yuan; the list has ${refunds.length}, ${formatCents(received(refunds))}`);
  if (!/^#导出时间：\[.+\]\s*$/.test(next(l, 'the 导出时间 line'))) fail(l.at, 'expected "#导出时间：[…]"');
  if (l.at < l.lines.length) fail(l.at + 1, 'unexpected lines after 导出时间');
  return { ...head, rows };
}

function detailRow(line: string, lineNo: number): AlipayBillRow {
  const v = fieldsOf(line, lineNo, DETAIL_COLUMNS.length);
  const col = (name: (typeof DETAIL_COLUMNS)[number]) => v[DETAIL_COLUMNS.indexOf(name)];
  const type = col('业务类型');
  if (type !== PAYMENT_TYPE && type !== REFUND_TYPE) fail(lineNo, `业务类型 "${clip(type)}" is neither ${PAYMENT_TYPE} nor ${REFUND_TYPE}`);
  const kind = type === PAYMENT_TYPE ? 'payment' : 'refund';
  const tradeNo = col('支付宝交易号');
  const outTradeNo = col('商户订单号');
  if (!/^[0-9A-Za-z]{1,64}$/.test(tradeNo)) fail(lineNo, `支付宝交易号 "${clip(tradeNo)}" is not one`);
  if (!outTradeNo) fail(lineNo, '商户订单号 is empty');
  const time = col('完成时间');
  if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(time)) fail(lineNo, `完成时间 "${clip(time)}" is not yyyy-MM-dd HH:mm:ss`);
  const amount = yuan(col('订单金额（元）'), lineNo);
  const requestNo = col('退款批次号/请求号');
  if (kind === 'payment' && amount <= 0) fail(lineNo, `a payment of ${col('订单金额（元）')} yuan`);
  // A refund states what went back as a negative amount.
  if (kind === 'refund' && amount >= 0) fail(lineNo, `a refund of ${col('订单金额（元）')} yuan (refunds are written negative)`);
  if (kind === 'refund' && !requestNo) fail(lineNo, 'a refund without 退款批次号/请求号');
  return {
    lineNo,
    kind,
    type,
    tradeNo,
    outTradeNo,
    outRequestNo: kind === 'refund' ? requestNo : null,
    time,
    amountCents: Math.abs(amount),
    receivedCents: yuan(col('商家实收（元）'), lineNo),
    feeCents: yuan(col('服务费（元）'), lineNo),
    splitCents: yuan(col('分润（元）') || '0.00', lineNo),
  };
}

function readSummary(text: string): { account: string; date: string; totals: AlipayBillTotals } {
  const l = linesOf(text);
  const head = readHead(l, '#支付宝业务汇总查询');
  if (!rule('业务汇总列表').test(next(l, 'the list'))) fail(l.at, 'expected the rule opening 业务汇总列表');
  expectHeader(l, SUMMARY_COLUMNS);
  const close = rule('业务汇总列表结束');
  const shops: AlipayBillTotals[] = [];
  let total: AlipayBillTotals | undefined;
  for (;;) {
    const line = next(l, 'the rule closing 业务汇总列表');
    if (close.test(line)) break;
    if (line.startsWith('#')) fail(l.at, `unexpected comment "${clip(line)}" inside the list`);
    const v = fieldsOf(line, l.at, SUMMARY_COLUMNS.length);
    const count = (i: number) => (/^\d+$/.test(v[i]) ? Number(v[i]) : fail(l.at, `${SUMMARY_COLUMNS[i]} "${clip(v[i])}" is not a count`));
    const row: AlipayBillTotals = {
      payments: count(2),
      refunds: count(3),
      orderCents: yuan(v[4], l.at),
      receivedCents: yuan(v[5], l.at),
      feeCents: yuan(v[9], l.at),
      splitCents: yuan(v[10], l.at),
      netCents: yuan(v[11], l.at),
    };
    if (v[0] === '合计') {
      if (total) fail(l.at, 'a second 合计 row');
      total = row;
    } else if (total) fail(l.at, 'a shop row after the 合计 row');
    else shops.push(row);
  }
  if (!total) fail(l.at, 'the summary has no 合计 row');
  // The shops' rows add up to the 合计 row.
  for (const k of Object.keys(total!) as Array<keyof AlipayBillTotals>) {
    const sum = shops.reduce((n, s) => n + s[k], 0);
    if (shops.length && sum !== total![k]) fail(l.at, `the shops' ${k} add up to ${sum}, the 合计 row says ${total![k]}`);
  }
  if (!/^#导出时间：\[.+\]\s*$/.test(next(l, 'the 导出时间 line'))) fail(l.at, 'expected "#导出时间：[…]"');
  if (l.at < l.lines.length) fail(l.at + 1, 'unexpected lines after 导出时间');
  return { ...head, totals: total! };
}

function expectHeader(l: Lines, columns: readonly string[]): void {
  const v = fieldsOf(next(l, 'the column header'), l.at, columns.length);
  const wrong = columns.findIndex((c, i) => v[i] !== c);
  if (wrong >= 0) fail(l.at, `column ${wrong + 1} is "${clip(v[wrong])}", expected "${columns[wrong]}"`);
}

/**
 * The values of a CSV line: separated by commas, a value holding a comma or a quote is quoted (a
 * quote inside doubled); each value trimmed of the tab Alipay writes after it and of spaces.
 */
export function fieldsOf(line: string, lineNo: number, count: number): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let value = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) fail(lineNo, 'a quoted value is not closed');
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += line[i++];
      }
      const rest = /^[\t ]*/.exec(line.slice(i))![0];
      i += rest.length;
      if (i < line.length && line[i] !== ',') fail(lineNo, `text after a quoted value (column ${out.length + 1})`);
    } else {
      const end = line.indexOf(',', i);
      value = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
      if (value.includes('"')) fail(lineNo, `a quote inside an unquoted value (column ${out.length + 1})`);
    }
    out.push(value.trim());
    if (i >= line.length) break;
    i++; // the comma
  }
  if (out.length !== count) fail(lineNo, `${out.length} values, expected ${count}`);
  return out;
}

/** A signed yuan amount with two decimals as integer cents, never through a float. */
function yuan(text: string, lineNo: number): number {
  const negative = text.startsWith('-');
  try {
    const cents = parseDecimal(negative ? text.slice(1) : text, { scale: 2, minDecimals: 2, max: Number.MAX_SAFE_INTEGER, allowZero: true });
    return negative ? -cents : cents;
  } catch (e) {
    if (e instanceof AmountError) return fail(lineNo, `"${clip(text)}" is not a yuan amount: ${e.message}`);
    throw e;
  }
}

const clip = (s: string | undefined) => ((s ?? '').length > 40 ? `${s!.slice(0, 40)}…` : (s ?? ''));
