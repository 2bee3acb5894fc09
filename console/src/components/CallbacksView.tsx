/** Every callback of the login's merchants, given up first, with resend; recover a window; what the development receiver got. */
import { useEffect, useState } from 'react';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { CallbackCard } from './Attempts';
import { DayField } from './DayField';

const pad = (n: number) => String(n).padStart(2, '0');
/** A moment in this browser's zone as a day and a whole hour (the recovery window's steps). */
const dayHour = (ms: number) => {
  const d = new Date(ms);
  return { day: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`, hour: d.getHours() };
};
const HOURS = Array.from({ length: 24 }, (_, h) => h);
const GROUPS = ['given_up', 'pending', 'delivered'] as const;

export function CallbacksView() {
  const { callbacks, route, session } = useConsoleApp();
  const s = useStore(callbacks, (x) => x);
  const withReceiver = useStore(session, (x) => x.session?.receiver ?? false);
  const t = useT();
  const [since, setSince] = useState(() => dayHour(Date.now() - 86_400_000));
  const [until, setUntil] = useState(() => dayHour(Date.now() + 3_600_000));

  useEffect(() => {
    void callbacks.getState().load(withReceiver);
  }, [callbacks, withReceiver]);

  const recover = () => {
    const a = new Date(`${since.day}T${pad(since.hour)}:00`);
    const b = new Date(`${until.day}T${pad(until.hour)}:00`);
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
        <p className="muted" data-testid="console-callbacks-lead">
          {t('cb.lead')}
        </p>
        <p className="muted">{t('cb.leadResend')}</p>
        <div className="recover">
          <span>{t('cb.recoverLead')}</span>
          <MomentField label={t('cb.from')} value={since} onChange={setSince} testId="console-recover-since" />
          <MomentField label={t('cb.until')} value={until} onChange={setUntil} testId="console-recover-until" />
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
      {GROUPS.map((state) => {
        const items = s.items?.filter((c) => c.state === state) ?? [];
        if (!items.length) return null;
        return (
          <section key={state} className="cb-group" data-testid="console-callback-group" data-state={state}>
            <h2 className="group-title">
              {t(`cb.group.${state}`)} <span className="muted">({items.length})</span>
            </h2>
            {items.map((c) => (
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
          </section>
        );
      })}
      {withReceiver && (
        <div className="card receiver" data-testid="console-receiver">
          <h2>{t('cb.receiver')}</h2>
          <p className="muted" data-testid="console-receiver-lead">
            {t('cb.receiverLead')}
          </p>
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

/** A day and a whole hour in this browser's zone, written the language's way (24-hour clock). */
function MomentField({
  label,
  value,
  onChange,
  testId,
}: {
  label: string;
  value: { day: string; hour: number };
  onChange(v: { day: string; hour: number }): void;
  testId: string;
}) {
  return (
    <div className="field">
      <span className="field-label">{label}</span>
      <span className="moment">
        <DayField value={value.day} label={label} testId={`${testId}-day`} onChange={(day) => onChange({ ...value, day })} />
        <select aria-label={label} data-testid={`${testId}-hour`} value={value.hour} onChange={(e) => onChange({ ...value, hour: Number(e.target.value) })}>
          {HOURS.map((h) => (
            <option key={h} value={h}>
              {pad(h)}:00
            </option>
          ))}
        </select>
      </span>
    </div>
  );
}
