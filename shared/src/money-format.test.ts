import { MAX_PAYMENT_CENTS, MAX_POINT_UNITS } from './money';
import {
  decimalUnits,
  formatMoney,
  formatMoneyText,
  formatPointsAmount,
  formatPointsText,
  groupDecimalInput,
  groupThousands,
  moneyParts,
  pointsParts,
  POINTS_UNIT,
} from './money-format';

describe('money on screen', () => {
  it.each([
    [0, '¥0.00'],
    [1, '¥0.01'],
    [99, '¥0.99'],
    [321, '¥3.21'],
    [100_000, '¥1,000.00'],
    [123_456_789, '¥1,234,567.89'],
    [MAX_PAYMENT_CENTS, '¥1,000,000.00'],
  ])('writes %d cents as %s', (cents, text) => expect(formatMoney(cents)).toBe(text));

  it('puts the sign before the currency for a negative amount', () => {
    expect(formatMoney(-321)).toBe('-¥3.21');
    expect(formatMoney(-123_456)).toBe('-¥1,234.56');
  });

  it('splits the largest amount into parts a screen can style', () => {
    expect(moneyParts(MAX_PAYMENT_CENTS)).toEqual({ sign: '', currency: '¥', whole: '1,000,000', fraction: '00', unit: '' });
  });

  it('reads wire decimals exactly (no float) and shows text that is no amount as it came', () => {
    expect(formatMoneyText('1000000.0')).toBe('¥1,000,000.00');
    expect(formatMoneyText('0.29')).toBe('¥0.29');
    expect(formatMoneyText('7')).toBe('¥7.00');
    expect(formatMoneyText('-0.05')).toBe('-¥0.05');
    expect(formatMoneyText('12.345')).toBe('¥12.345');
    expect(decimalUnits('999999999.99', 2)).toBe(99_999_999_999);
    expect(decimalUnits('1e3', 2)).toBeNull();
  });

  it('refuses a non-integer number of cents', () => expect(() => formatMoney(1.5)).toThrow());
});

describe('points on screen', () => {
  it('writes five decimals and the unit of each language, no decimals for a whole number (the API keeps five)', () => {
    expect(formatPointsAmount(1_250_000, 'en')).toBe('12.50000\u00a0points');
    expect(formatPointsAmount(1_250_000, 'zh-CN')).toBe('12.50000积分');
    expect(formatPointsAmount(0, 'en')).toBe('0\u00a0points');
    expect(formatPointsAmount(1, 'zh-CN')).toBe('0.00001积分');
  });

  it('groups thousands of the largest points amount', () => {
    expect(formatPointsAmount(MAX_POINT_UNITS, 'en')).toBe('10,000,000,000\u00a0points');
    expect(pointsParts(123_456_700_000, 'zh-CN')).toEqual({ sign: '', currency: '', whole: '1,234,567', fraction: '', unit: '积分' });
    expect(formatPointsAmount(-150_000, 'en')).toBe('-1.50000\u00a0points');
  });

  it('reads balances from the wire', () => {
    expect(formatPointsText('100.00000', 'en')).toBe('100\u00a0points');
    expect(formatPointsText('1000000000', 'zh-CN')).toBe('1,000,000,000积分');
    expect(formatPointsText('0.00001', 'en')).toBe('0.00001\u00a0points');
    expect(formatPointsText('87.5', 'zh-CN')).toBe('87.50000积分');
    expect(formatPointsText('n/a', 'en')).toBe(`n/a ${POINTS_UNIT.en}`);
  });
});

describe('amounts being typed', () => {
  it.each([
    ['', ''],
    ['0.', '0.'],
    ['12.5', '12.5'],
    ['1000', '1,000'],
    ['1000000.0', '1,000,000.0'],
    ['1000000.00', '1,000,000.00'],
    ['abc', 'abc'],
  ])('shows %j as %j', (typed, shown) => expect(groupDecimalInput(typed)).toBe(shown));

  it('groups digit strings only', () => {
    expect(groupThousands('1')).toBe('1');
    expect(groupThousands('1234')).toBe('1,234');
    expect(groupThousands('123456')).toBe('123,456');
  });
});
