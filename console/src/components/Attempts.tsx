/** A callback's attempts, oldest first: when, the HTTP status (or why there was none), how long, what the receiver said. */
import type { ReactNode } from 'react';
import type { CallbackItem } from '@kit/shared/api/callbacks';
import { useT } from '../i18n/use-t';

export function Attempts({ item }: { item: CallbackItem }) {
  const t = useT();
  return (
    <ol className="attempts">
      {item.attempts.map((a, i) => {
        // With an HTTP status, what the receiver said; without one, why there was none.
        const said = (a.httpStatus !== null ? a.answer || a.error : a.error) ?? t('cb.noAnswer');
        return (
          <li key={i} data-testid="console-attempt" className={a.httpStatus !== null && a.httpStatus < 300 && !a.error ? 'ok' : 'bad'}>
            <span className="at">{t.time(a.at)}</span>
            <span className="http">{a.httpStatus === null ? '—' : `HTTP ${a.httpStatus}`}</span>
            <span className="ms">{a.latencyMs} ms</span>
            <span className="said" title={said}>
              {said}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

export function CallbackHead({ item }: { item: CallbackItem }) {
  const t = useT();
  return (
    <div className="cb-head">
      <span className={`chip ${item.state}`} data-testid="console-callback-state">
        {t(`cb.state.${item.state}`)}
      </span>
      <span className="cb-event">{t(`cb.event.${item.event}`)}</span>
      <span className="muted">{t.count('cb.attempts', item.attempts.length)}</span>
      {item.nextAttemptAt && <span className="muted">{t('cb.next', { time: t.time(item.nextAttemptAt) })}</span>}
      {item.url && (
        <span className="cb-url muted" title={item.url}>
          {t('cb.to', { url: item.url })}
        </span>
      )}
    </div>
  );
}

/**
 * One callback as both the callbacks list and an order's story show it: its head, a resend button
 * with what the resend said (already translated), and its attempts. `lead` goes before the head
 * (the list links the order there).
 */
export function CallbackCard({
  item,
  className,
  lead,
  resent,
  onResend,
}: {
  item: CallbackItem;
  className: string;
  lead?: ReactNode;
  resent?: string;
  onResend(): void;
}) {
  const t = useT();
  return (
    <div className={className} data-testid="console-callback">
      <div className="cb-row">
        {lead}
        <CallbackHead item={item} />
        <button type="button" data-testid="console-resend" onClick={onResend}>
          {t('cb.resend')}
        </button>
      </div>
      {resent && (
        <p className="message" role="status" data-testid="console-resend-outcome">
          {resent}
        </p>
      )}
      <Attempts item={item} />
    </div>
  );
}
