/**
 * A day, shown the language's way (`Fri, Nov 27, 2026`, `2026年11月27日周五`) with a step back and
 * forward, and chosen on the browser's own calendar. Chromium writes a date input in the language
 * of its own interface whatever the page's `lang` (an English Chromium writes 11/27/2026 in an
 * `<input lang="zh-CN" type="date">`), so the input stays out of sight and only lends its
 * calendar (`showPicker`).
 */
import { useRef } from 'react';
import { useT } from '../i18n/use-t';

export const addDays = (day: string, n: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

export function DayField({
  value,
  onChange,
  label,
  testId,
  max,
  disabled = false,
}: {
  value: string;
  onChange(day: string): void;
  /** What the day is for, said to screen readers with it. */
  label: string;
  testId: string;
  /** The last day that may be chosen (`YYYY-MM-DD`). */
  max?: string;
  disabled?: boolean;
}) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const open = () => {
    const el = input.current;
    if (!el) return;
    try {
      el.showPicker();
    } catch {
      // A browser without showPicker (or refusing it): the input takes the focus, typing works.
      el.focus();
    }
  };
  const last = !!max && value >= max;
  return (
    <span className="day-field">
      <button
        type="button"
        className="day-step"
        aria-label={t('day.previous')}
        title={t('day.previous')}
        disabled={disabled}
        onClick={() => onChange(addDays(value, -1))}
      >
        ‹
      </button>
      <button
        type="button"
        className="day-shown"
        data-testid={testId}
        data-day={value}
        aria-label={`${label}: ${t.date(value)}. ${t('day.choose')}`}
        disabled={disabled}
        onClick={open}
      >
        {t.date(value)}
      </button>
      <input
        ref={input}
        type="date"
        className="day-native"
        tabIndex={-1}
        aria-hidden="true"
        data-testid={`${testId}-input`}
        value={value}
        max={max}
        disabled={disabled}
        onChange={(e) => e.target.value && onChange(e.target.value)}
      />
      <button
        type="button"
        className="day-step"
        aria-label={t('day.next')}
        title={t('day.next')}
        disabled={disabled || last}
        onClick={() => onChange(addDays(value, 1))}
      >
        ›
      </button>
    </span>
  );
}
