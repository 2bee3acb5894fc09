import { checkAmount, pressKey, type KeypadKey } from './amount-input';
import { translator } from '../i18n/i18n';

const en = translator('en');
const zh = translator('zh-CN');

const type = (keys: string, start = '') => [...keys].reduce((t, k) => pressKey(t, (k === '<' ? 'back' : k) as KeypadKey), start);

describe('keypad text', () => {
  it('builds plain decimals: no leading zeros, one point, at most two decimals', () => {
    expect(type('0012.345')).toBe('12.34');
    expect(type('.5')).toBe('0.5');
    expect(type('1..2')).toBe('1.2');
    expect(type('12.3<<')).toBe('12');
    expect(pressKey('12.34', 'clear')).toBe('');
    expect(type('99999999999')).toBe('9999999999');
  });

  it('judges the amount with the service rule (parseCents)', () => {
    expect(checkAmount('')).toEqual({ ok: false, message: null });
    expect(checkAmount('12.3')).toEqual({ ok: true, cents: 1230, display: '12.30' });
    expect(checkAmount('12.')).toEqual({ ok: true, cents: 1200, display: '12.00' });
    const zero = checkAmount('0.00');
    expect(zero.ok).toBe(false);
    expect(!zero.ok && zero.message && en(zero.message)).toBe('The amount must be greater than zero.');
    expect(!zero.ok && zero.message && zh(zero.message)).toBe('金额必须大于零。');
    const big = checkAmount('1000000.01');
    expect(!big.ok && big.message && en(big.message)).toBe('The largest amount is ¥1,000,000.00.');
    expect(checkAmount('1000000').ok).toBe(true);
  });
});
