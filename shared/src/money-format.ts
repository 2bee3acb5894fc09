/**
 * The one way amounts are written on a screen, in both languages and both front ends:
 * money as `¥1,234,567.80` (currency sign, thousands separators, two decimals), points as
 * `1,234.50000 points` / `1,234.50000 积分` (five decimals and their unit), or `100 points` / `100积分`
 * when they are whole (the API keeps its five decimals: section 2.6). Built on the integer
 * helpers of `money.ts`: nothing here goes through a float.
 */
import type { Lang } from './i18n';
import { AmountError, POINT_SCALE, formatDecimal, parseDecimal } from './money';

export const CURRENCY_SIGN = '¥';

/** The unit written after a points amount. */
export const POINTS_UNIT: Record<Lang, string> = { 'zh-CN': '积分', en: 'points' };

/** An amount split for display, so a screen can style the sign or the unit apart from the digits. */
export interface AmountParts {
  /** `-` for a negative amount, otherwise empty. */
  sign: '' | '-';
  /** `¥` for money, empty for points. */
  currency: string;
  /** The whole part with thousands separators: `1,000,000`. */
  whole: string;
  /** The decimals: always both for money (`00`); all five for points (`50000`), none for whole points. */
  fraction: string;
  /** ` points` / `积分` for points, empty for money. */
  unit: string;
}

/** "1234567" → "1,234,567". Only for a string of digits. */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function split(units: number, scale: number): { sign: '' | '-'; whole: string; fraction: string } {
  const text = formatDecimal(units, scale);
  const negative = text.startsWith('-');
  const [whole, fraction] = (negative ? text.slice(1) : text).split('.');
  return { sign: negative ? '-' : '', whole: groupThousands(whole), fraction };
}

export function moneyParts(cents: number): AmountParts {
  return { ...split(cents, 2), currency: CURRENCY_SIGN, unit: '' };
}

export function pointsParts(units: number, lang: Lang): AmountParts {
  const p = split(units, POINT_SCALE);
  return { ...p, fraction: /^0+$/.test(p.fraction) ? '' : p.fraction, currency: '', unit: POINTS_UNIT[lang] };
}

/** `1,234.50`, or `100` when there are no decimals to write. */
export function partsNumber(p: AmountParts): string {
  return p.fraction ? `${p.whole}.${p.fraction}` : p.whole;
}

/** Joins parts the way every screen writes them: `-¥1,234.50`, `1,234.50000 points`, `1,234.50000 积分`. */
export function joinParts(p: AmountParts): string {
  const number = `${p.sign}${p.currency}${partsNumber(p)}`;
  if (!p.unit) return number;
  // Chinese sets a unit right after the number; English keeps a (non-breaking) space.
  return /^[\u3000-\u9fff]/.test(p.unit) ? `${number}${p.unit}` : `${number}\u00a0${p.unit}`;
}

/** 123456 cents → "¥1,234.56"; the same in Chinese and English (both write the yuan this way). */
export function formatMoney(cents: number): string {
  return joinParts(moneyParts(cents));
}

/** 150000 point units → "1.50000 points" / "1.50000积分"; 100000 → "1 points" / "1积分". */
export function formatPointsAmount(units: number, lang: Lang): string {
  return joinParts(pointsParts(units, lang));
}

/** A decimal from the wire ("12.3", "-0.05") as integer minor units, or null when it is not one. */
export function decimalUnits(text: string, scale: number): number | null {
  if (typeof text !== 'string') return null;
  const negative = text.startsWith('-');
  try {
    const units = parseDecimal(negative ? text.slice(1) : text, { scale, max: Number.MAX_SAFE_INTEGER, allowZero: true });
    return negative ? -units : units;
  } catch (e) {
    if (e instanceof AmountError) return null;
    throw e;
  }
}

/** A money decimal from the wire ("1000000.0") → "¥1,000,000.00"; text that is no amount is shown as it came. */
export function formatMoneyText(text: string): string {
  const cents = decimalUnits(text, 2);
  return cents === null ? `${CURRENCY_SIGN}${text}` : formatMoney(cents);
}

export function moneyTextParts(text: string): AmountParts | null {
  const cents = decimalUnits(text, 2);
  return cents === null ? null : moneyParts(cents);
}

/** A points decimal from the wire ("100.5") → "100.50000 points", ("100.00000") → "100 points"; text that is no amount is shown as it came. */
export function formatPointsText(text: string, lang: Lang): string {
  const units = decimalUnits(text, POINT_SCALE);
  return units === null ? `${text} ${POINTS_UNIT[lang]}` : formatPointsAmount(units, lang);
}

export function pointsTextParts(text: string, lang: Lang): AmountParts | null {
  const units = decimalUnits(text, POINT_SCALE);
  return units === null ? null : pointsParts(units, lang);
}

/**
 * An amount being typed ("1000000.5", "12.", "0.0") with thousands separators and nothing else
 * changed, so the entry reads like the final amount while the cashier types it.
 */
export function groupDecimalInput(text: string): string {
  const m = /^(\d*)(\.\d*)?$/.exec(text);
  if (!m) return text;
  return `${groupThousands(m[1])}${m[2] ?? ''}`;
}
