/**
 * The bill parser against the platform's own format: `server/test/fixtures/bill.ALL.sample.csv` holds
 * six lines of the official SDK fixture wechatpay-apiv3/wechatpay-php `tests/fixtures/bill.ALL.csv`
 * (header and lines as published; the summary row recomputed for the six lines).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BillFormatError, formatTradeBill, parseTradeBill } from './trade-bill';
import { addDays, chinaDate, chinaDayRange, isChinaDate } from './china-day';

const fixture = readFileSync(join(__dirname, '../../test/fixtures/bill.ALL.sample.csv'), 'utf8');

function refusal(text: string): BillFormatError {
  try {
    parseTradeBill(text);
  } catch (e) {
    if (e instanceof BillFormatError) return e;
    throw e;
  }
  throw new Error('the bill was accepted');
}

describe('trade bill', () => {
  it('reads the official fixture: payments, refunds as their own lines, fees, summary', () => {
    const bill = parseTradeBill(fixture);
    expect(bill.lines).toHaveLength(6);
    const refunds = bill.lines.filter((l) => l.kind === 'refund');
    expect(refunds.map((r) => [r.outTradeNo, r.outRefundNo, r.amountCents, r.refundState])).toEqual([
      ['autotest_20190216081946_82335', 'REF4200000263201902167700963919', 1, 'SUCCESS'],
      ['autotest_20190216091939_66824', 'REF4200000264201902164505328587', 1, 'SUCCESS'],
    ]);
    const native = bill.lines.find((l) => l.outTradeNo === 'autotest_20190219015232_89201')!;
    expect(native).toMatchObject({ kind: 'payment', tradeState: 'SUCCESS', amountCents: 3, feeUnits: 1000, tradeType: 'NATIVE', lineNo: 4 });
    expect(bill.summary).toEqual({ count: 6, settledCents: 8, refundCents: 2, couponRefundCents: 0, feeUnits: 2000, orderCents: 8, refundRequestedCents: 2 });
  });

  it('refuses a malformed file with the line that broke it', () => {
    const rows = fixture.split('\n');
    const broken = (i: number, row: string) => [...rows.slice(0, i), row, ...rows.slice(i + 1)].join('\n');
    expect(refusal(broken(1, rows[1].replace('`0.01,`0.00,`ORIGINAL', '`0.0x,`0.00,`ORIGINAL'))).message).toMatch(/line 2: 退款金额 "0.0x" is not an amount/);
    expect(refusal(broken(2, rows[2].replace(',`JSAPI', ',JSAPI'))).message).toMatch(/line 3: value 9 does not start with a backtick/);
    expect(refusal(broken(5, rows[5].slice(0, 40))).message).toMatch(/line 6: expected 27 values/);
    expect(refusal(broken(0, rows[0].replace('商户号', '商户'))).line).toBe(1);
    // Cut short in the middle of the lines (the summary then does not add up), or before the summary.
    expect(refusal([...rows.slice(0, 3), ...rows.slice(7)].join('\n')).message).toMatch(/line 5: the summary does not add up: 总交易单数 6 but 2 lines/);
    expect(refusal(rows.slice(0, 5).join('\n')).message).toMatch(/summary header is missing/);
    expect(refusal(rows.slice(0, 8).join('\n')).message).toMatch(/line 9: the summary row is missing/);
    expect(refusal(`${fixture}extra\n`).message).toMatch(/after the summary/);
    expect(refusal('').line).toBe(1);
  });

  it('writes what it reads', () => {
    const text = formatTradeBill([
      {
        kind: 'payment',
        time: '2026-11-23 10:00:00',
        appId: 'wxapp',
        mchId: '1900000001',
        subMchId: '1900000002',
        transactionId: '4200001',
        outTradeNo: 'T1',
        tradeType: 'NATIVE',
        tradeState: 'SUCCESS',
        refundId: null,
        outRefundNo: null,
        refundState: null,
        amountCents: 1234,
        feeUnits: 7404,
        body: 'tea, green',
      },
      {
        kind: 'refund',
        time: '2026-11-23 11:00:00',
        appId: 'wxapp',
        mchId: '1900000001',
        subMchId: '1900000002',
        transactionId: '4200001',
        outTradeNo: 'T1',
        tradeType: 'NATIVE',
        tradeState: 'REFUND',
        refundId: '5000001',
        outRefundNo: 'R1',
        refundState: 'SUCCESS',
        amountCents: 1234,
        body: 'tea',
      },
    ]);
    const bill = parseTradeBill(text);
    expect(bill.lines.map((l) => [l.kind, l.outTradeNo, l.outRefundNo, l.amountCents])).toEqual([
      ['payment', 'T1', null, 1234],
      ['refund', 'T1', 'R1', 1234],
    ]);
    expect(bill.summary).toMatchObject({ count: 2, orderCents: 1234, refundCents: 1234, feeUnits: 7000 });
  });
});

describe('China dates', () => {
  it('cuts days at 00:00 UTC+8', () => {
    expect(chinaDate(Date.parse('2026-11-23T15:59:59Z'))).toBe('2026-11-23');
    expect(chinaDate(Date.parse('2026-11-23T16:00:00Z'))).toBe('2026-11-24');
    expect(chinaDayRange('2026-11-24')).toEqual({ from: Date.parse('2026-11-23T16:00:00Z'), to: Date.parse('2026-11-24T16:00:00Z') });
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(isChinaDate('2026-02-29')).toBe(false);
    expect(isChinaDate('2028-02-29')).toBe(true);
    expect(isChinaDate('2028-2-29')).toBe(false);
  });
});
