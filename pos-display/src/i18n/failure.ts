/**
 * Failures in words a cashier can act on. A refusal of the service becomes the catalogue's text for
 * its `error` id (or a generic text with the code to quote), a lost network a plain sentence, a
 * refused amount the reason in the cashier's language; never a field path or a developer message.
 */
import { describeServiceFailure, serviceError as serviceErrorOf } from '@kit/web-common/failure';
import { AmountError, MAX_PAYMENT_CENTS, MAX_POINT_UNITS, POINT_SCALE, formatPoints, type AmountProblem } from '@kit/shared/money';
import { formatMoney, groupDecimalInput } from '@kit/shared/money-format';
import { msg, type Msg } from './i18n';
import { MESSAGES } from './messages';

export function describeFailure(e: unknown): Msg {
  const said = describeServiceFailure(MESSAGES, e);
  if (said) return said;
  if (e instanceof AmountError) return amountProblem(e.problem, 'money');
  return msg('error.generic', { code: 'POS' });
}

/** The catalogue's text for a service `error` id, or the generic text with the code to quote. */
export const serviceError = (id: string | undefined, code: string): Msg => serviceErrorOf(MESSAGES, id, code);

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
