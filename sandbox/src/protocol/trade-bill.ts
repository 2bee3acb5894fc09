/**
 * The social platform's trade bill (`bill_type=ALL`) as the platform publishes it, written by the
 * sandbox's platform (`../sandbox-bills.ts`) apart from the kit's reader
 * (`payments/providers/social-v3/trade-bill.ts`), so that a reader that misreads the format is
 * caught rather than agreed with: a UTF-8 file with a byte order mark and CRLF line ends; a header
 * of 27 column names joined by commas, one line per payment and one per refund (交易状态 `REFUND`),
 * every value prefixed with a backtick, amounts in yuan, then a summary header and row. Values are
 * not quoted and may hold commas (a product or shop name "Acme, Inc."): the separator between
 * values is a comma followed by a backtick (wechatpay-axios-plugin's `Formatter.castCsvLine`).
 */
import { formatDecimal } from '@kit/shared';

const BILL_COLUMNS = [
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

const SUMMARY_COLUMNS = ['总交易单数', '应结订单总金额', '退款总金额', '充值券退款总金额', '手续费总金额', '订单总金额', '申请退款总金额'] as const;

/** Between two values: a comma, then the backtick every value begins with. */
const SEPARATOR = ',`';

/** Fees are written with up to 5 decimals of a yuan; the writer is given them in 1/100000 yuan. */
const FEE_DECIMALS = 5;

/** One line of the bill; amounts in cents, fees in 1/100000 yuan. */
export interface BillLineInput {
  kind: 'payment' | 'refund';
  /** `yyyy-MM-dd HH:mm:ss`, China time. */
  time: string;
  appId: string;
  mchId: string;
  subMchId: string;
  transactionId: string;
  outTradeNo: string;
  tradeType: string;
  /** 商品名称 (it may hold commas). */
  body: string;
  /** 交易状态: SUCCESS, REFUND, REVOKED… */
  tradeState: string;
  refundId: string | null;
  outRefundNo: string | null;
  /** Refund lines: 退款状态 (SUCCESS, PROCESSING, FAIL…). */
  refundState: string | null;
  /** 订单金额 of a payment, 申请退款金额 of a refund. */
  amountCents: number;
  /** 应结订单金额 (payments) or 退款金额 (refunds); the amount when absent. */
  settledCents?: number;
  /** 手续费; none when absent. */
  feeUnits?: number;
}

/** The bill of these lines, in the platform's format. */
export function formatTradeBill(lines: BillLineInput[]): string {
  const y = (cents: number) => formatDecimal(cents, 2);
  const fee = (units: number) => formatDecimal(units, FEE_DECIMALS);
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
    if (cells.length !== BILL_COLUMNS.length) throw new Error(`a bill line of ${cells.length} values for ${BILL_COLUMNS.length} columns`);
    out.push(`\`${cells.join(SEPARATOR)}`);
  }
  out.push(SUMMARY_COLUMNS.join(','));
  // The summary's fee total is rounded to the cent (1/100000 yuan → 1/100).
  out.push(`\`${[`${lines.length}.0`, y(settled), y(refunded), '0.00', formatDecimal(Math.round(fees / 1000), 2), y(ordered), y(requested)].join(SEPARATOR)}`);
  // The byte order mark and CRLF line ends of the platform's files.
  return `\uFEFF${out.join('\r\n')}\r\n`;
}
