/**
 * The bill parser against the platform's own format: `server/test/fixtures/bill.ALL.sample.csv` holds
 * six lines of the official SDK fixture wechatpay-apiv3/wechatpay-php `tests/fixtures/bill.ALL.csv`
 * (header and lines as published; the summary row recomputed for the six lines), in the bytes of the
 * platform's files as wechatpay-axios-plugin's `tests/fixtures/bill.ALL.csv` has them: a UTF-8 byte
 * order mark and CRLF line ends. The plugin's `Formatter.castCsvBill` is the referee for where values
 * begin and end.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Formatter } from 'wechatpay-axios-plugin';
import { BILL_COLUMNS, BillFormatError, formatTradeBill, parseTradeBill, type BillLine } from './trade-bill';
import { addDays, chinaDate, chinaDayRange, isChinaDate } from '../../../reconciliation/china-day';

const fixtureBytes = readFileSync(join(__dirname, '../../../../test/fixtures/bill.ALL.sample.csv'));
const fixture = fixtureBytes.toString('utf8');

/** What the plugin reads: every line's values by column name, and the summary. */
function castByPlugin(text: string): { rows: Array<Record<string, string>>; summary: Record<string, string> } {
  return Formatter.castCsvBill(Buffer.from(text)) as never;
}

/** A line as the parser keeps it, from the plugin's values of the same line. */
function expectedLine(row: Record<string, string>): Partial<BillLine> {
  const refund = row['交易状态'] === 'REFUND';
  return {
    time: row['交易时间'],
    appId: row['公众账号ID'],
    mchId: row['商户号'],
    subMchId: row['特约商户号'],
    transactionId: row['微信订单号'],
    outTradeNo: row['商户订单号'],
    tradeType: row['交易类型'],
    tradeState: row['交易状态'],
    body: row['商品名称'],
    refundId: refund ? row['微信退款单号'] : null,
    outRefundNo: refund ? row['商户退款单号'] : null,
    refundState: refund ? row['退款状态'] : null,
  };
}

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

  it('reads the bytes the platform sends (byte order mark, CRLF) as the plugin does', () => {
    expect([...fixtureBytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(
      fixture
        .split('\n')
        .slice(0, -1)
        .every((r) => r.endsWith('\r')),
    ).toBe(true);
    const bill = parseTradeBill(fixture);
    const plugin = castByPlugin(fixture);
    expect(bill.lines).toEqual(plugin.rows.map((r) => expect.objectContaining(expectedLine(r))));
    expect(bill.lines.map((l) => l.body)).toContain('系统拨测-cheeryin-test_micropay_succ');
    expect(`${bill.summary.count}.0`).toBe(plugin.summary['总交易单数']);
  });

  it('keeps commas inside values: a product name "Acme, Inc." and commas in every text column', () => {
    // Every column the platform fills with text (not an id, an amount, a time or a code the parser checks).
    const text = ['设备号', '用户标识', '付款银行', '退款类型', '商品名称', '商户数据包', '费率', '费率备注'].map((c) => BILL_COLUMNS.indexOf(c as never));
    const rows = fixture.split('\r\n');
    const withCommas = rows
      .map((r, i) => {
        if (i === 0 || !r.startsWith('`') || i > 6) return r;
        const v = r.slice(1).split(',`');
        for (const at of text) v[at] = at === BILL_COLUMNS.indexOf('商品名称') ? `Acme, Inc., line ${i}` : `${v[at]},x,,y,`;
        return `\`${v.join(',`')}`;
      })
      .join('\r\n');
    expect(withCommas).not.toBe(fixture);
    const bill = parseTradeBill(withCommas);
    const plugin = castByPlugin(withCommas);
    expect(plugin.rows[0]['商品名称']).toBe('Acme, Inc., line 1');
    expect(plugin.rows[0]['商户数据包']).toBe(',x,,y,');
    expect(bill.lines).toEqual(plugin.rows.map((r) => expect.objectContaining(expectedLine(r))));
    // Everything but the product name reads as it does without the commas.
    const plain = parseTradeBill(fixture);
    expect(bill.lines.map(({ body: _, ...l }) => l)).toEqual(plain.lines.map(({ body: _, ...l }) => l));
    expect(bill.lines.map((l) => l.body)).toEqual([
      'Acme, Inc., line 1',
      'Acme, Inc., line 2',
      'Acme, Inc., line 3',
      'Acme, Inc., line 4',
      'Acme, Inc., line 5',
      'Acme, Inc., line 6',
    ]);
  });

  it('refuses a malformed file with the line that broke it', () => {
    const rows = fixture.split('\r\n');
    const broken = (i: number, row: string) => [...rows.slice(0, i), row, ...rows.slice(i + 1)].join('\r\n');
    expect(refusal(broken(1, rows[1].replace('`0.01,`0.00,`ORIGINAL', '`0.0x,`0.00,`ORIGINAL'))).message).toMatch(/line 2: 退款金额 "0.0x" is not an amount/);
    // A value without its backtick runs into the value before it.
    expect(refusal(broken(2, rows[2].replace(',`JSAPI', ',JSAPI'))).message).toMatch(/line 3: expected 27 values, found 26/);
    expect(refusal(broken(8, rows[8].slice(1))).message).toMatch(/line 9: value 1 does not start with a backtick/);
    expect(refusal(broken(5, rows[5].slice(0, 40))).message).toMatch(/line 6: expected 27 values/);
    expect(refusal(broken(0, rows[0].replace('商户号', '商户'))).line).toBe(1);
    // Cut short in the middle of the lines (the summary then does not add up), or before the summary.
    expect(refusal([...rows.slice(0, 3), ...rows.slice(7)].join('\r\n')).message).toMatch(/line 5: the summary does not add up: 总交易单数 6 but 2 lines/);
    expect(refusal(rows.slice(0, 5).join('\r\n')).message).toMatch(/summary header is missing/);
    expect(refusal(rows.slice(0, 8).join('\r\n')).message).toMatch(/line 9: the summary row is missing/);
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
        body: 'Acme, Inc.: tea, green`,\r\nsecond line',
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
    // The platform's bytes: a byte order mark, CRLF line ends, values joined by a comma and a backtick.
    expect(text.startsWith('\uFEFF交易时间,公众账号ID,')).toBe(true);
    expect(text.split('\r\n')).toHaveLength(6);
    const bill = parseTradeBill(text);
    expect(bill.lines.map((l) => [l.kind, l.outTradeNo, l.outRefundNo, l.amountCents, l.body])).toEqual([
      ['payment', 'T1', null, 1234, 'Acme, Inc.: tea, green ,  second line'],
      ['refund', 'T1', 'R1', 1234, 'tea'],
    ]);
    // The plugin reads the sandbox's bill the same way.
    expect(castByPlugin(text).rows.map((r) => r['商品名称'])).toEqual(['Acme, Inc.: tea, green ,  second line', 'tea']);
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
