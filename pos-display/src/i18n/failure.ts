/**
 * Failures in words a cashier can act on. A refusal of the service becomes the catalogue's text for
 * its `error` id (or a generic text with the code to quote), a lost network a plain sentence, a
 * refused amount the reason in the cashier's language; never a field path or a developer message.
 */
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import { AmountError, MAX_PAYMENT_CENTS, MAX_POINT_UNITS, POINT_SCALE, formatPoints, type AmountProblem } from '@kit/shared/money';
import { formatMoney, groupDecimalInput } from '@kit/shared/money-format';
import { isMessageKey, msg, type Msg } from './i18n';

export function describeFailure(e: unknown): Msg {
  if (e instanceof KitNetworkError) return msg('error.network');
  if (e instanceof KitApiError) {
    if (e.httpStatus === 401 && e.error !== 'login_failed') return msg('error.login_invalid');
    return serviceError(e.error, typeof e.body.code === 'string' ? e.body.code : String(e.httpStatus));
  }
  if (e instanceof AmountError) return amountProblem(e.problem, 'money');
  return msg('error.generic', { code: 'POS' });
}

/** The catalogue's text for a service `error` id, or the generic text with the code to quote. */
export function serviceError(id: string | undefined, code: string): Msg {
  const key = `error.${id ?? ''}`;
  return isMessageKey(key) ? msg(key) : msg('error.generic', { code });
}

/** Why an amount (money on the keypad, or points in the form) is refused. */
export function amountProblem(problem: AmountProblem, kind: 'money' | 'points'): Msg {
  const points = kind === 'points';
  switch (problem) {
    case 'empty':
      return msg('amount.empty');
    case 'zero':
      return msg('amount.zero');
    case 'aboveMax':
      return msg('amount.aboveMax', { max: points ? groupDecimalInput(formatPoints(MAX_POINT_UNITS)) : formatMoney(MAX_PAYMENT_CENTS) });
    case 'tooManyDecimals':
      return msg('amount.tooManyDecimals', { decimals: points ? POINT_SCALE : 2 });
    default:
      return msg('amount.format', { example: points ? '12.5' : '12.34' });
  }
}
