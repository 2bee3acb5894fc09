/** Every callback of the login's merchants, given up first, with resend; recover a window; what the development receiver got. */
import { useEffect, useState } from 'react';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { localTime } from '../i18n/i18n';
import { CallbackCard } from './Attempts';

/** `datetime-local` wants `YYYY-MM-DDTHH:mm` in the browser's zone. */
const localInput = (ms: number) => localTime(new Date(ms).toISOString()).replace(' ', 'T').slice(0, 16);

export function CallbacksView() {
  const { callbacks, route, session } = useConsoleApp();
  const s = useStore(callbacks, (x) => x);
  const withReceiver = useStore(session, (x) => x.session?.receiver ?? false);
  const t = useT();
  const [since, setSince] = useState(() => localInput(Date.now() - 86_400_000));
  const [until, setUntil] = useState(() => localInput(Date.now() + 60_000));

  useEffect(() => {
    void callbacks.getState().load(withReceiver);
  }, [callbacks, withReceiver]);

  const recover = () => {
    const a = new Date(since);
    const b = new Date(until);
    if (Number.isNaN(a.getTime()) || Number.isNaN(b.getTime())) return;
    void callbacks.getState().recover(a.toISOString(), b.toISOString(), withReceiver);
  };

  return (
    <section className="callbacks">
      <div className="card">
        <div className="title-row">
          <h1>{t('cb.title')}</h1>
          <button type="button" data-testid="console-callbacks-refresh" disabled={s.loading} onClick={() => void callbacks.getState().load(withReceiver)}>
            {t('order.refreshing')}
          </button>
        </div>
        <p className="muted">{t('cb.lead')}</p>
        <div className="recover">
          <span>{t('cb.recoverLead')}</span>
          <label>
            {t('cb.from')}
            <input type="datetime-local" data-testid="console-recover-since" value={since} onChange={(e) => setSince(e.target.value)} />
          </label>
          <label>
            {t('cb.until')}
            <input type="datetime-local" data-testid="console-recover-until" value={until} onChange={(e) => setUntil(e.target.value)} />
          </label>
          <button type="button" data-testid="console-recover" onClick={recover}>
            {t('cb.recover')}
          </button>
        </div>
        {s.message && (
          <p className="message" role="status" data-testid="console-callbacks-message">
            {t(s.message)}
          </p>
        )}
      </div>
      {s.items && s.items.length === 0 && <p className="muted">{t('cb.none')}</p>}
      {s.items?.map((c) => (
        <CallbackCard
          key={c.id}
          item={c}
          className="card callback"
          lead={
            <button type="button" className="link id" onClick={() => route.getState().go({ name: 'order', prepayId: c.prepayId })}>
              {c.prepayId}
            </button>
          }
          resent={s.resent[c.id] && t(s.resent[c.id])}
          onResend={() => void callbacks.getState().resend(c.id, withReceiver)}
        />
      ))}
      {withReceiver && (
        <div className="card receiver" data-testid="console-receiver">
          <h2>{t('cb.receiver')}</h2>
          <p className="muted">{t('cb.receiverLead')}</p>
          {s.received.length === 0 && <p className="muted">{t('cb.receiverNone')}</p>}
          <ol className="received">
            {s.received.map((r, i) => (
              <li key={i} data-testid="console-received">
                <span className="at">{t.time(r.at)}</span>
                <span className="id">{r.prepayId ?? '—'}</span>
                <span>{r.status ? t(`cb.event.${r.status as 'finish'}`) : ''}</span>
                <span className={r.signature === 'ok' ? 'ok' : 'bad'}>{t('cb.signature', { result: r.signature })}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
