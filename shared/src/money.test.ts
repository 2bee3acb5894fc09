import { AmountError, formatCents, formatPoints, parseCents, parsePoints, parsePointsNumber, parseRmb, compareDecimals, MAX_PAYMENT_CENTS } from './money';

describe('parseCents', () => {
  it.each([
    ['12.34', 1234],
    ['0.01', 1],
    ['1', 100],
    ['1.5', 150],
    ['10.00', 1000],
    ['1000000.00', MAX_PAYMENT_CENTS],
  ])('reads %s as %d cents', (text, cents) => expect(parseCents(text)).toBe(cents));

  it.each([
    ['1.234', /at most 2/],
    ['-1', /plain decimal/],
    ['0', /greater than zero/],
    ['0.00', /greater than zero/],
    ['1e3', /plain decimal/],
    ['', /empty/],
    [' 1.00', /plain decimal/],
    ['1.00 ', /plain decimal/],
    ['01.00', /plain decimal/],
    ['1.', /plain decimal/],
    ['.5', /plain decimal/],
    ['+1', /plain decimal/],
    ['1,00', /plain decimal/],
    ['0x10', /plain decimal/],
    ['Infinity', /plain decimal/],
    ['NaN', /plain decimal/],
    ['1000000.01', /above the maximum/],
    ['99999999999999999999', /above the maximum/],
    ['１２', /plain decimal/],
  ])('refuses %j', (text, why) => expect(() => parseCents(text)).toThrow(why));

  it.each([[12.34], [1], [null], [undefined], [{}], [['1.00']], [true]])('refuses the non-string %j', (v) => {
    expect(() => parseCents(v)).toThrow(AmountError);
    expect(() => parseCents(v)).toThrow(/decimal string/);
  });

  it('never goes through a float: 0.1 + 0.2 style values stay exact', () => {
    expect(parseCents('0.10') + parseCents('0.20')).toBe(parseCents('0.30'));
    expect(parseCents('999999.99')).toBe(99999999);
    expect(parseCents('0.29')).toBe(29); // 0.29 * 100 is 28.999999999999996 in floats
  });
});

describe('formatCents', () => {
  it.each([
    [1234, '12.34'],
    [1, '0.01'],
    [0, '0.00'],
    [100, '1.00'],
    [-5, '-0.05'],
  ])('writes %d as %s', (cents, text) => expect(formatCents(cents)).toBe(text));

  it('round-trips every cent value near boundaries', () => {
    for (const c of [1, 9, 10, 99, 100, 101, 999, 1000, 123456, MAX_PAYMENT_CENTS]) expect(parseCents(formatCents(c))).toBe(c);
  });

  it('refuses non-integers', () => expect(() => formatCents(1.5)).toThrow(AmountError));
});

describe('points', () => {
  it('counts in 1/100000 and shows 5 decimals', () => {
    expect(parsePoints('1')).toBe(100000);
    expect(parsePoints('0.00001')).toBe(1);
    expect(parsePoints('12.5')).toBe(1250000);
    expect(formatPoints(1250000)).toBe('12.50000');
    expect(formatPoints(0)).toBe('0.00000');
  });
  it('refuses finer than 1/100000', () => expect(() => parsePoints('0.000001')).toThrow(/at most 5/));
  it('reads maxAmount given as a JSON number through its decimal text', () => {
    expect(parsePointsNumber(0.1)).toBe(10000);
    expect(parsePointsNumber(100)).toBe(10000000);
    expect(parsePointsNumber('2.5')).toBe(250000);
    expect(() => parsePointsNumber(1e21)).toThrow(/out of range/);
    expect(() => parsePointsNumber(-1)).toThrow();
    expect(() => parsePointsNumber(NaN)).toThrow(/finite/);
    expect(() => parsePointsNumber(1e-7)).toThrow();
  });
});

describe('parseRmb (donation amounts)', () => {
  it('reads "<decimal> RMB" with at least 2 decimals and keeps every decimal as sent', () => {
    expect(parseRmb('12.00 RMB')).toBe('12.00');
    expect(parseRmb('0.50 RMB')).toBe('0.50');
    expect(parseRmb('100.000 RMB')).toBe('100.000');
    expect(parseRmb('12.125 RMB')).toBe('12.125');
    expect(parseRmb('900000000000.01 RMB')).toBe('900000000000.01');
  });

  it.each(['12 RMB', '12.0 RMB', '12.00', '12.00RMB', '12.00 rmb', 'RMB 12.00', '-1.00 RMB', '+1.00 RMB', '1e3 RMB', '1.00e2 RMB', '01.00 RMB', ' 1.00 RMB'])(
    'refuses %j',
    (v) => expect(() => parseRmb(v)).toThrow(AmountError),
  );

  it('compares decimals exactly, whatever their number of decimals', () => {
    expect(compareDecimals('1000.00', '50000.000')).toBeLessThan(0);
    expect(compareDecimals('2.10', '2.1')).toBe(0);
    expect(compareDecimals('2.105', '2.10')).toBeGreaterThan(0);
    expect(compareDecimals('10.00', '9.999')).toBeGreaterThan(0);
    expect(compareDecimals('0.00', '0.001')).toBeLessThan(0);
  });
});
