/**
 * An amount written the one shared way (`¥1,234,567.80`, `1,234.50000 points`), with the currency
 * sign and the unit in their own spans so they can be set smaller. Never wraps; with `fit` it
 * shrinks to the width of its parent instead of overflowing.
 */
import { useRef } from 'react';
import { joinParts, moneyTextParts, pointsTextParts } from '@kit/shared/money-format';
import { useT } from '../i18n/use-t';
import { useFit } from './use-fit';

export interface MoneyProps {
  /** A decimal as the service sends it ("12.3", "100.00000"). */
  value: string;
  kind?: 'money' | 'points';
  className?: string;
  testId?: string;
  /** Shrink to the width of the parent (a block) when the CSS size is too large for it. */
  fit?: boolean;
}

export function Money({ value, kind = 'money', className, testId, fit = false }: MoneyProps) {
  const t = useT();
  const ref = useRef<HTMLSpanElement>(null);
  useFit(ref, fit, [value, kind, t.lang]);
  const parts = kind === 'money' ? moneyTextParts(value) : pointsTextParts(value, t.lang);
  const cls = `money${fit ? ' fit' : ''}${className ? ` ${className}` : ''}`;
  if (!parts) {
    return (
      <span ref={ref} className={cls} data-testid={testId}>
        {kind === 'money' ? t.money(value) : t.points(value)}
      </span>
    );
  }
  const number = `${parts.whole}.${parts.fraction}`;
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
