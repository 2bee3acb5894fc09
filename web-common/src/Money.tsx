/**
 * An amount written the one shared way (`¥1,234,567.80`, `1,234.50000 points`, `100 points`), with the currency
 * sign and the unit in their own spans so they can be set smaller. Never wraps; with `fit` it
 * shrinks to the width of its parent instead of overflowing.
 */
import { useRef } from 'react';
import type { Lang } from '@kit/shared/i18n';
import { formatMoneyText, formatPointsText, joinParts, moneyTextParts, partsNumber, pointsTextParts } from '@kit/shared/money-format';
import { useFit } from './use-fit';

export interface MoneyProps {
  /** A decimal as the service sends it ("12.3", "100.00000"). */
  value: string;
  /** The language on screen: the points unit's words, and a fitted amount is measured again when the fonts change with it. */
  lang: Lang;
  kind?: 'money' | 'points';
  className?: string;
  testId?: string;
  /** Shrink to the width of the parent (a block) when the CSS size is too large for it. */
  fit?: boolean;
}

export function Money({ value, lang, kind = 'money', className, testId, fit = false }: MoneyProps) {
  const ref = useRef<HTMLSpanElement>(null);
  useFit(ref, fit, [value, kind, lang]);
  const parts = kind === 'money' ? moneyTextParts(value) : pointsTextParts(value, lang);
  const cls = `money${fit ? ' fit' : ''}${className ? ` ${className}` : ''}`;
  if (!parts) {
    return (
      <span ref={ref} className={cls} data-testid={testId}>
        {kind === 'money' ? formatMoneyText(value) : formatPointsText(value, lang)}
      </span>
    );
  }
  const number = partsNumber(parts);
  const unit = parts.unit ? joinParts(parts).slice(joinParts({ ...parts, unit: '' }).length) : '';
  return (
    <span ref={ref} className={cls} data-testid={testId}>
      {parts.sign}
      {parts.currency && <span className="currency">{parts.currency}</span>}
      {number}
      {unit && <span className="unit">{unit}</span>}
    </span>
  );
}
