/**
 * The platform's trade bill (`bill_type=ALL`): a UTF-8 file with a byte order mark and CRLF line
 * ends; a header of 27 column names joined by commas, one line per payment and one per refund
 * (交易状态 `REFUND`), every value prefixed with a backtick, amounts in yuan, then a summary header
 * and row. Values are not quoted and may hold commas (a product or shop name "Acme, Inc."): the
 * separator between values is a comma followed by a backtick, as wechatpay-axios-plugin's
 * `Formatter.castCsvLine` splits them. The parser is strict: anything it does not understand refuses
 * the whole file with the line that broke it, so a half-read bill never reaches the books. The
 * writer is the same format, for the kit's tests (the sandbox writes its bills with its own,
 * `sandbox/src/protocol/trade-bill.ts`, so that the two are checked against each other).
 */
import { FEE_SCALE } from '../provider';
import { AmountError, formatDecimal, parseDecimal } from '@kit/shared';

export const BILL_COLUMNS = [
  '交易时间',
  '公众账号ID',
  '商户号',
  '特约商户号',
  '设备号',
  '微信订单号',
  '商户订单号',
  '用户标识',
  '交易类型',
  '交易状态',
  '付款银行',
  '货币种类',
  '应结订单金额',
  '代金券金额',
  '微信退款单号',
  '商户退款单号',
  '退款金额',
  '充值券退款金额',
  '退款类型',
  '退款状态',
  '商品名称',
  '商户数据包',
  '手续费',
  '费率',
  '订单金额',
  '申请退款金额',
  '费率备注',
] as const;

export const SUMMARY_COLUMNS = ['总交易单数', '应结订单总金额', '退款总金额', '充值券退款总金额', '手续费总金额', '订单总金额', '申请退款总金额'] as const;

/** Fees carry up to 5 decimals of a yuan: they are kept in 1/100000 yuan. */
export { FEE_SCALE };

export interface BillLine {
  /** 1-based line number in the file. */
  lineNo: number;
  kind: 'payment' | 'refund';
  /** `yyyy-MM-dd HH:mm:ss`, China time, as written. */
  time: string;
  appId: string;
  mchId: string;
  subMchId: string;
  transactionId: string;
  outTradeNo: string;
  tradeType: string;
  /** 商品名称, as written (it may hold commas). */
  body: string;
  /** 交易状态: SUCCESS, REFUND, REVOKED… */
  tradeState: string;
  refundId: string | null;
  outRefundNo: string | null;
  /** Refund lines: 退款状态 (SUCCESS, PROCESSING, FAIL…). */
  refundState: string | null;
  /** 订单金额 of a payment, 申请退款金额 of a refund, in cents. */
  amountCents: number;
  /** 应结订单金额 (payments) or 退款金额 (refunds), in cents. */
  settledCents: number;
  feeUnits: number;
}

export interface BillSummary {
  count: number;
  settledCents: number;
  refundCents: number;
  couponRefundCents: number;
  feeUnits: number;
  orderCents: number;
  refundRequestedCents: number;
}

export interface TradeBill {
  lines: BillLine[];
  summary: BillSummary;
}

/** A bill that cannot be read; `line` is the 1-based line that broke it. */
export class BillFormatError extends Error {
  constructor(
    readonly line: number,
    why: string,
  ) {
    super(`bill line ${line}: ${why}`);
    this.name = 'BillFormatError';
  }
}

const YUAN = { scale: 2, max: Number.MAX_SAFE_INTEGER, allowZero: true };
const FEE = { scale: FEE_SCALE, max: Number.MAX_SAFE_INTEGER, allowZero: true };
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

export function parseTradeBill(text: string): TradeBill {
  const rows = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  // One trailing newline ends the file; any other empty line is a broken file.
  if (rows.at(-1) === '') rows.pop();
  if (rows.length === 0) throw new BillFormatError(1, 'the file is empty');
  expectHeader(rows[0], BILL_COLUMNS, 1);
  const summaryAt = rows.findIndex((r, i) => i > 0 && !r.startsWith('`'));
  if (summaryAt < 0) throw new BillFormatError(rows.length + 1, 'the summary header is missing (the file is truncated)');
  expectHeader(rows[summaryAt], SUMMARY_COLUMNS, summaryAt + 1);
  if (rows.length < summaryAt + 2) throw new BillFormatError(summaryAt + 2, 'the summary row is missing (the file is truncated)');
  if (rows.length > summaryAt + 2) throw new BillFormatError(summaryAt + 3, 'unexpected content after the summary row');

  const lines = rows.slice(1, summaryAt).map((r, i) => parseLine(r, i + 2));
  const summary = parseSummary(rows[summaryAt + 1], summaryAt + 2);
  checkTotals(lines, summary, summaryAt + 2);
  return { lines, summary };
}

function expectHeader(row: string, columns: readonly string[], lineNo: number): void {
  if (row !== columns.join(',')) throw new BillFormatError(lineNo, `expected the header "${columns.join(',')}"`);
}

/** Between two values: a comma, then the next value's backtick. A bare comma is part of a value. */
const SEPARATOR = ',`';

function values(row: string, count: number, lineNo: number): string[] {
  if (!row.startsWith('`')) throw new BillFormatError(lineNo, 'value 1 does not start with a backtick');
  const cells = row.slice(1).split(SEPARATOR);
  if (cells.length !== count) throw new BillFormatError(lineNo, `expected ${count} values, found ${cells.length}`);
  return cells;
}

function amount(text: string, rule: typeof YUAN, lineNo: number, column: string): number {
  try {
    return parseDecimal(text, rule);
  } catch (e) {
    if (e instanceof AmountError) throw new BillFormatError(lineNo, `${column} "${text}" is not an amount`);
    throw e;
  }
}

function parseLine(row: string, lineNo: number): BillLine {
  const v = values(row, BILL_COLUMNS.length, lineNo);
  const col = (name: (typeof BILL_COLUMNS)[number]) => v[BILL_COLUMNS.indexOf(name)];
  const money = (name: (typeof BILL_COLUMNS)[number]) => amount(col(name), YUAN, lineNo, name);
  if (!TIME.test(col('交易时间'))) throw new BillFormatError(lineNo, `交易时间 "${col('交易时间')}" is not yyyy-MM-dd HH:mm:ss`);
  if (!col('商户订单号')) throw new BillFormatError(lineNo, '商户订单号 is empty');
  if (col('货币种类') !== 'CNY') throw new BillFormatError(lineNo, `货币种类 "${col('货币种类')}" is not CNY`);
  const refund = col('交易状态') === 'REFUND';
  if (refund && !col('商户退款单号')) throw new BillFormatError(lineNo, 'a refund line without 商户退款单号');
  return {
    lineNo,
    kind: refund ? 'refund' : 'payment',
    time: col('交易时间'),
    appId: col('公众账号ID'),
    mchId: col('商户号'),
    subMchId: col('特约商户号'),
    transactionId: col('微信订单号'),
    outTradeNo: col('商户订单号'),
    tradeType: col('交易类型'),
    body: col('商品名称'),
    tradeState: col('交易状态'),
    refundId: refund ? col('微信退款单号') : null,
    outRefundNo: refund ? col('商户退款单号') : null,
    refundState: refund ? col('退款状态') : null,
    amountCents: refund ? money('申请退款金额') : money('订单金额'),
    settledCents: refund ? money('退款金额') : money('应结订单金额'),
    feeUnits: amount(col('手续费'), FEE, lineNo, '手续费'),
  };
}

function parseSummary(row: string, lineNo: number): BillSummary {
  const v = values(row, SUMMARY_COLUMNS.length, lineNo);
  const m = (i: number) => amount(v[i], YUAN, lineNo, SUMMARY_COLUMNS[i]);
  // The platform writes the count as a decimal ("45.0").
  const count = /^(0|[1-9][0-9]*)(\.0+)?$/.exec(v[0]);
  if (!count) throw new BillFormatError(lineNo, `总交易单数 "${v[0]}" is not a count`);
  return {
    count: Number(count[1]),
    settledCents: m(1),
    refundCents: m(2),
    couponRefundCents: m(3),
    feeUnits: amount(v[4], FEE, lineNo, '手续费总金额'),
    orderCents: m(5),
    refundRequestedCents: m(6),
  };
}

/** The summary must add up to the lines: a bill cut short in the middle of its lines is caught here. */
function checkTotals(lines: BillLine[], s: BillSummary, lineNo: number): void {
  const sum = (pick: (l: BillLine) => number, kind?: BillLine['kind']) => lines.filter((l) => !kind || l.kind === kind).reduce((n, l) => n + pick(l), 0);
  const problems: string[] = [];
  if (s.count !== lines.length) problems.push(`总交易单数 ${s.count} but ${lines.length} lines`);
  if (s.settledCents !== sum((l) => l.settledCents, 'payment')) problems.push('应结订单总金额 differs from the lines');
  if (s.refundCents !== sum((l) => l.settledCents, 'refund')) problems.push('退款总金额 differs from the lines');
  if (s.orderCents !== sum((l) => l.amountCents, 'payment')) problems.push('订单总金额 differs from the lines');
  if (s.refundRequestedCents !== sum((l) => l.amountCents, 'refund')) problems.push('申请退款总金额 differs from the lines');
  // Fees are rounded to the cent in the summary.
  if (Math.abs(s.feeUnits - sum((l) => l.feeUnits)) >= 1000) problems.push('手续费总金额 differs from the lines');
  if (problems.length) throw new BillFormatError(lineNo, `the summary does not add up: ${problems.join('; ')}`);
}

/** What the writer needs of one line; amounts in cents. */
export type BillLineInput = Omit<BillLine, 'lineNo' | 'settledCents' | 'feeUnits'> & { settledCents?: number; feeUnits?: number };

/** Writes a bill in the platform's format (the kit's tests' bills). */
export function formatTradeBill(lines: BillLineInput[]): string {
  const y = (cents: number) => formatDecimal(cents, 2);
  const fee = (units: number) => formatDecimal(units, FEE_SCALE);
  const out = [BILL_COLUMNS.join(',')];
  let settled = 0;
  let refunded = 0;
  let fees = 0;
  let ordered = 0;
  let requested = 0;
  for (const l of lines) {
    const refund = l.kind === 'refund';
    const settledCents = l.settledCents ?? l.amountCents;
    const feeUnits = l.feeUnits ?? 0;
    fees += feeUnits;
    if (refund) {
      refunded += settledCents;
      requested += l.amountCents;
    } else {
      settled += settledCents;
      ordered += l.amountCents;
    }
    const cells = [
      l.time,
      l.appId,
      l.mchId,
      l.subMchId,
      '',
      l.transactionId,
      l.outTradeNo,
      '',
      l.tradeType,
      l.tradeState,
      'OTHERS',
      'CNY',
      refund ? '0.00' : y(settledCents),
      '0.00',
      refund ? (l.refundId ?? '') : '0',
      refund ? (l.outRefundNo ?? '') : '0',
      refund ? y(settledCents) : '0.00',
      '0.00',
      refund ? 'ORIGINAL' : '',
      refund ? (l.refundState ?? 'SUCCESS') : '',
      // Commas stay; a backtick after a comma would start a new value and a line end a new line, so
      // backticks and line ends become spaces.
      l.body.replace(/[\r\n`]/g, ' '),
      '',
      fee(feeUnits),
      '0.60%',
      refund ? '0.00' : y(l.amountCents),
      refund ? y(l.amountCents) : '0.00',
      '',
    ];
    out.push(`\`${cells.join(SEPARATOR)}`);
  }
  out.push(SUMMARY_COLUMNS.join(','));
  out.push(`\`${[`${lines.length}.0`, y(settled), y(refunded), '0.00', formatDecimal(Math.round(fees / 1000), 2), y(ordered), y(requested)].join(SEPARATOR)}`);
  // The byte order mark and CRLF line ends of the platform's files.
  return `\uFEFF${out.join('\r\n')}\r\n`;
}
