/**
 * The keypad's text. Keys build a plain decimal (no leading zeros, one point, at most two
 * decimals); whether it is an acceptable amount is decided by `parseCents`, the service's own rule.
 */
import { AmountError, formatCents, parseCents } from '@kit/shared/money';
import { amountProblem } from '../i18n/failure';
import type { Msg } from '../i18n/i18n';

export type KeypadKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '.' | 'back' | 'clear';

/** Longest text the keypad builds ("1000000.00" is the largest amount). */
const MAX_LENGTH = 10;

export function pressKey(text: string, key: KeypadKey): string {
  if (key === 'clear') return '';
  if (key === 'back') return text.slice(0, -1);
  if (key === '.') {
    if (text.includes('.')) return text;
    return text === '' ? '0.' : `${text}.`;
  }
  // A digit.
  if (text.length >= MAX_LENGTH) return text;
  const dot = text.indexOf('.');
  if (dot >= 0 && text.length - dot > 2) return text;
  if (text === '0') return key;
  return text + key;
}

export type AmountCheck = { ok: true; cents: number; display: string } | { ok: false; message: Msg | null };

/** `message` is null for an empty entry (nothing to complain about yet). */
export function checkAmount(text: string): AmountCheck {
  if (text === '') return { ok: false, message: null };
  // "12." is on its way to "12.50"; as an amount it means 12.
  const candidate = text.endsWith('.') ? text.slice(0, -1) : text;
  try {
    const cents = parseCents(candidate);
    return { ok: true, cents, display: formatCents(cents) };
  } catch (e) {
    if (e instanceof AmountError) return { ok: false, message: amountProblem(e.problem, 'money') };
    throw e;
  }
}
