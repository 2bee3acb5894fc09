/**
 * Alipay's trade bill files, written here by hand in Alipay's layout and encoded to GBK with
 * iconv-lite (the bytes Alipay's archive holds): a payment whose product name holds a comma, a
 * refund written negative, amounts read to the cent without floats, and every way a bill can be
 * inconsistent refused with where (a summary or a trailer the detail does not add up to, a column
 * moved, a cut-off file, text that is not GBK).
 */
import iconv from 'iconv-lite';
import { AlipayBillFormatError, DETAIL_COLUMNS, readAlipayBillFiles, SUMMARY_COLUMNS } from './trade-bill';

const T = '\t';
const detailLines = (
  rows: string[],
  trailer = ['#交易合计：2笔，商家实收共1001.20元，商家优惠共0.00元', '#退款合计：1笔，商家实收退款共-0.10元，商家优惠退款共0.00元'],
) => [
  '#支付宝业务明细查询',
  '#账号：[20881234567890120156]',
  '#起始日期：[2026年11月26日 00:00:00]   终止日期：[2026年11月27日 00:00:00]',
  '#-----------------------------------------业务明细列表----------------------------------------',
  DETAIL_COLUMNS.join(','),
  ...rows,
  '#-----------------------------------------业务明细列表结束------------------------------------',
  ...trailer,
  '#导出时间：[2026年11月27日 09:02:11]',
];
const row = (values: string[]) => values.map((v) => `${v}${T}`).join(',');
const PAYMENT = row([
  '2026112622001400000001',
  'AP17640000000001',
  '交易',
  '"Acme, Inc.',
  '2026-11-26 10:00:00',
  '2026-11-26 10:00:05',
  '',
  '',
  '',
  '',
  'buyer_001',
  '1000.00',
  '1000.00',
  '0.00',
  '0.00',
  '0.00',
  '0.00',
  '0.00',
  '',
  '0.00',
  '0.00',
  '',
  '-6.00',
  '0.00',
  '',
]).replace(`"Acme, Inc.${T}`, `"Acme, Inc.${T}"`);
const SECOND = row([
  '2026112622001400000002',
  'AP17640000000002',
  '交易',
  'Shop',
  '2026-11-26 11:00:00',
  '2026-11-26 11:00:01',
  '',
  '',
  '',
  '',
  'buyer_002',
  '1.20',
  '1.20',
  ...Array(5).fill('0.00'),
  '',
  '0.00',
  '0.00',
  '',
  '-0.01',
  '0.00',
  '',
]);
const REFUND = row([
  '2026112622001400000002',
  'AP17640000000002',
  '退款',
  'Shop',
  '2026-11-26 11:00:00',
  '2026-11-26 23:59:59',
  '',
  '',
  '',
  '',
  'buyer_002',
  '-0.10',
  '-0.10',
  ...Array(5).fill('0.00'),
  '',
  '0.00',
  '0.00',
  'RF17640000000002',
  '0.00',
  '0.00',
  '',
]);
const summaryLines = (totals: string[]) => [
  '#支付宝业务汇总查询',
  '#账号：[20881234567890120156]',
  '#起始日期：[2026年11月26日 00:00:00]   终止日期：[2026年11月27日 00:00:00]',
  '#-----------------------------------------业务汇总列表----------------------------------------',
  SUMMARY_COLUMNS.join(','),
  row(['', '', ...totals]),
  row(['合计', '', ...totals]),
  '#----------------------------------------业务汇总列表结束-------------------------------------',
  '#导出时间：[2026年11月27日 09:02:11]',
];
const TOTALS = ['2', '1', '1001.10', '1001.10', '0.00', '0.00', '0.00', '-6.01', '0.00', '995.09'];

const gbk = (lines: string[]) => iconv.encode(`${lines.join('\r\n')}\r\n`, 'gbk');
const read = (detail: string[], summary: string[] = summaryLines(TOTALS)) => readAlipayBillFiles(gbk(detail), gbk(summary));

test('reads payments and refunds of a GBK bill to the cent, the product name with its comma', () => {
  const bill = read(detailLines([PAYMENT, SECOND, REFUND]));
  expect(bill.account).toBe('20881234567890120156');
  expect(bill.date).toBe('2026-11-26');
  expect(bill.rows).toEqual([
    {
      lineNo: 6,
      kind: 'payment',
      type: '交易',
      tradeNo: '2026112622001400000001',
      outTradeNo: 'AP17640000000001',
      outRequestNo: null,
      time: '2026-11-26 10:00:05',
      amountCents: 100000,
      receivedCents: 100000,
      feeCents: -600,
      splitCents: 0,
    },
    expect.objectContaining({ lineNo: 7, kind: 'payment', amountCents: 120, feeCents: -1 }),
    expect.objectContaining({
      lineNo: 8,
      kind: 'refund',
      type: '退款',
      tradeNo: '2026112622001400000002',
      outTradeNo: 'AP17640000000002',
      outRequestNo: 'RF17640000000002',
      time: '2026-11-26 23:59:59',
      amountCents: 10,
      receivedCents: -10,
    }),
  ]);
  expect(bill.totals).toEqual({ payments: 2, refunds: 1, orderCents: 100110, receivedCents: 100110, feeCents: -601, splitCents: 0, netCents: 99509 });
});

test('a summary that the detail does not add up to is refused, saying which totals differ', () => {
  const wrong = [...TOTALS];
  wrong[3] = '1001.11';
  wrong[9] = '995.10';
  expect(() => read(detailLines([PAYMENT, SECOND, REFUND]), summaryLines(wrong))).toThrow(
    "the summary's totals are not the detail's: 商家实收: summary 1001.11, detail 1001.10",
  );
  const count = [...TOTALS];
  count[1] = '0';
  expect(() => read(detailLines([PAYMENT, SECOND, REFUND]), summaryLines(count))).toThrow(/退款订单总笔数: summary 0, detail 1/);
  // The 实收净额 is 商家实收 + 服务费 + 分润.
  const net = [...TOTALS];
  net[9] = '1001.10';
  expect(() => read(detailLines([PAYMENT, SECOND, REFUND]), summaryLines(net))).toThrow(/实收净额: summary 1001.10, detail 995.09/);
});

test('a trailer that the list does not add up to, a moved column, a cut-off file, or not GBK: refused with the line', () => {
  expect(() => read(detailLines([PAYMENT, SECOND]))).toThrow(/line 10: 退款合计 says 1 refunds, -0.10 yuan; the list has 0, 0.00/);
  const swapped = detailLines([PAYMENT]);
  swapped[4] = DETAIL_COLUMNS.map((c, i) => (i === 1 ? '支付宝交易号' : i === 0 ? '商户订单号' : c)).join(',');
  expect(() => read(swapped)).toThrow(/line 5: column 1 is "商户订单号", expected "支付宝交易号"/);
  const cut = detailLines([PAYMENT, SECOND, REFUND]).slice(0, 7);
  expect(() => read(cut)).toThrow(/the file ends where the rule closing 业务明细列表 was expected/);
  const odd = detailLines([PAYMENT.replace('交易', '冻结'), SECOND, REFUND]);
  expect(() => read(odd)).toThrow(/line 6: 业务类型 "冻结" is neither 交易 nor 退款/);
  const float = detailLines([PAYMENT.replace(`1000.00${T},1000.00`, `1e3${T},1000.00`), SECOND, REFUND]);
  expect(() => read(float)).toThrow(/line 6: "1e3" is not a yuan amount/);
  const positiveRefund = detailLines([PAYMENT, SECOND, REFUND.replace(`-0.10${T},-0.10`, `0.10${T},-0.10`)]);
  expect(() => read(positiveRefund)).toThrow(/line 8: a refund of 0.10 yuan/);
  const utf8 = Buffer.from(`${detailLines([PAYMENT, SECOND, REFUND]).join('\r\n')}\r\n`);
  expect(() => readAlipayBillFiles(utf8, gbk(summaryLines(TOTALS)))).toThrow(AlipayBillFormatError);
  const otherDay = summaryLines(TOTALS);
  otherDay[2] = '#起始日期：[2026年11月25日 00:00:00]   终止日期：[2026年11月26日 00:00:00]';
  expect(() => read(detailLines([PAYMENT, SECOND, REFUND]), otherDay)).toThrow(/the summary is of 2026-11-25, the detail of 2026-11-26/);
});
