/**
 * Money and point amounts: decimal strings on the wire, safe integers of minor units inside.
 * Nothing here ever goes through a JavaScript float.
 */

/** Why an amount was refused, for screens that say it in the reader's language. */
export type AmountProblem = 'type' | 'empty' | 'format' | 'tooManyDecimals' | 'tooFewDecimals' | 'aboveMax' | 'zero';

export class AmountError extends Error {
  constructor(
    message: string,
    readonly problem: AmountProblem = 'format',
  ) {
    super(message);
    this.name = 'AmountError';
  }
}

export interface DecimalRule {
  /** Number of decimals of one minor unit (2 for cents, 5 for points). */
  scale: number;
  /** Fewest decimals the text must carry (donation amounts demand at least 2). */
  minDecimals?: number;
  /** Most decimals the text may carry; defaults to `scale`. */
  maxDecimals?: number;
  /** Largest accepted value, in minor units. */
  max: number;
  /** Whether zero is acceptable (balances may be zero, payments may not). */
  allowZero?: boolean;
}

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** Parses a non-negative decimal string into integer minor units, or throws AmountError saying why. */
export function parseDecimal(input: unknown, rule: DecimalRule): number {
  if (typeof input !== 'string') throw new AmountError(`amount must be a decimal string, got ${describe(input)}`, 'type');
  if (input.length === 0) throw new AmountError('amount must not be empty', 'empty');
  const m = DECIMAL.exec(input);
  if (!m) throw new AmountError(`amount "${clip(input)}" is not a plain decimal such as "12.34"`);
  const [, whole, frac = ''] = m;
  const maxDecimals = rule.maxDecimals ?? rule.scale;
  if (frac.length > maxDecimals) {
    throw new AmountError(`amount "${clip(input)}" has ${frac.length} decimals; at most ${maxDecimals} allowed`, 'tooManyDecimals');
  }
  if (rule.minDecimals !== undefined && frac.length < rule.minDecimals) {
    throw new AmountError(`amount "${clip(input)}" needs at least ${rule.minDecimals} decimals`, 'tooFewDecimals');
  }
  if (whole.length > 15) throw new AmountError(`amount "${clip(input)}" is above the maximum ${formatDecimal(rule.max, rule.scale)}`, 'aboveMax');
  // Extra decimals beyond the scale are only allowed when they are zeros (e.g. "1.500" for scale 2 with maxDecimals 3).
  const significant = frac.slice(0, rule.scale).padEnd(rule.scale, '0');
  if (/[1-9]/.test(frac.slice(rule.scale))) throw new AmountError(`amount "${clip(input)}" is finer than one minor unit`, 'tooManyDecimals');
  const units = Number(whole) * 10 ** rule.scale + Number(significant || '0');
  if (!Number.isSafeInteger(units) || units > rule.max) {
    throw new AmountError(`amount "${clip(input)}" is above the maximum ${formatDecimal(rule.max, rule.scale)}`, 'aboveMax');
  }
  if (units === 0 && !rule.allowZero) throw new AmountError('amount must be greater than zero', 'zero');
  return units;
}

/** Formats integer minor units as a decimal string with exactly `scale` decimals. */
export function formatDecimal(units: number, scale: number): string {
  if (!Number.isSafeInteger(units)) throw new AmountError(`not an integer amount: ${units}`, 'type');
  const negative = units < 0;
  const digits = String(Math.abs(units)).padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/** Largest payment the service accepts: 1,000,000.00 (100,000,000 cents). */
export const MAX_PAYMENT_CENTS = 100_000_000;
const PAYMENT: DecimalRule = { scale: 2, max: MAX_PAYMENT_CENTS };

/** "12.34" → 1234. At most 2 decimals, positive, at most MAX_PAYMENT_CENTS. */
export const parseCents = (input: unknown): number => parseDecimal(input, PAYMENT);
export const formatCents = (cents: number): string => formatDecimal(cents, 2);

/** Points are counted in 1/100000 of a point. */
export const POINT_SCALE = 5;
/** Largest single points amount: 10,000,000,000 points. */
export const MAX_POINT_UNITS = 10_000_000_000 * 100_000;
const POINTS: DecimalRule = { scale: POINT_SCALE, max: MAX_POINT_UNITS };

/** "1.5" → 150000. Up to 5 decimals, positive. */
export const parsePoints = (input: unknown): number => parseDecimal(input, POINTS);
export const formatPoints = (units: number): string => formatDecimal(units, POINT_SCALE);

/**
 * Points given as a JSON number (the deduction code's `maxAmount` is a number on the wire).
 * Converted through its shortest decimal text, never by multiplying a float.
 */
export function parsePointsNumber(input: unknown): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new AmountError('amount must be a finite number', 'type');
    const text = String(input);
    if (/e/i.test(text)) throw new AmountError(`amount ${text} is out of range`, 'aboveMax');
    return parsePoints(text);
  }
  if (typeof input === 'string' && input.trim() === input) return parsePoints(input);
  throw new AmountError(`amount must be a number, got ${describe(input)}`, 'type');
}

/**
 * Donation amounts (4.9, 4.10): "<decimal with at least 2 decimals> RMB". More decimals are
 * accepted and kept as sent (section 8 says "at least"), so the value is returned as its exact
 * decimal text, never as a number; compare two of them with `compareDecimals`.
 */
const RMB = /^(0|[1-9][0-9]{0,17})\.([0-9]{2,18}) RMB$/;
export function parseRmb(input: unknown): string {
  if (typeof input !== 'string') throw new AmountError(`amount must be a string like "12.00 RMB", got ${describe(input)}`, 'type');
  const m = RMB.exec(input);
  if (m) return `${m[1]}.${m[2]}`;
  if (!/ RMB$/.test(input)) throw new AmountError(`amount "${clip(input)}" must end with " RMB", like "12.00 RMB"`);
  throw new AmountError(`amount "${clip(input)}" must be a plain decimal with at least 2 decimals, like "12.00 RMB"`);
}

/** Orders two non-negative decimal strings exactly: negative, zero or positive like a comparator. */
export function compareDecimals(a: string, b: string): number {
  const [aw, af = ''] = a.split('.');
  const [bw, bf = ''] = b.split('.');
  if (aw.length !== bw.length) return aw.length - bw.length;
  if (aw !== bw) return aw < bw ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const x = af.padEnd(width, '0');
  const y = bf.padEnd(width, '0');
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Whether a decimal string is zero ("0.00", "0.000"). */
export const isZeroDecimal = (d: string): boolean => /^0\.0*$/.test(d) || d === '0';

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? `"${clip(v)}"` : `a ${typeof v}`;
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
