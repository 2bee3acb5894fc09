/** The reconciled days with the login's merchants' differences counted; a day's report, open differences first, linking to the orders the kit knows. */
import { useEffect } from 'react';
import type { ConsoleReconciliationDay } from '@kit/shared/api/console';
import type { ReconciliationDifference } from '@kit/shared/api/reconciliation';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { isMessageKey, type Translator } from '../i18n/i18n';
import { Money } from '@kit/web-common/Money';

export function ReconciliationView() {
  const { recon, route } = useConsoleApp();
  const s = useStore(recon, (x) => x);
  const t = useT();
  useEffect(() => {
    void recon.getState().loadDays();
  }, [recon]);

  return (
    <section className="recon">
      <div className="card">
        <div className="title-row">
          <h1>{t('recon.title')}</h1>
          <button type="button" data-testid="console-recon-refresh" disabled={s.loading} onClick={() => void recon.getState().loadDays()}>
            {t('order.refreshing')}
          </button>
        </div>
        <p className="muted">{t('recon.lead')}</p>
      </div>
      {s.message && (
        <p className="message error" role="alert">
          {t(s.message)}
        </p>
      )}
      {s.days && (
        <div className="card list">
          {s.days.length === 0 && <p className="muted">{t('recon.none')}</p>}
          <ul className="order-rows">
            {s.days.map((d) => (
              <li key={`${d.date}/${d.channel}`}>
                <DayRow day={d} t={t} onOpen={() => route.getState().go({ name: 'reconciliationDay', date: d.date })} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function DayRow({ day, t, onOpen }: { day: ConsoleReconciliationDay; t: Translator; onOpen: () => void }) {
  const counts = [
    ...Object.entries(day.byKind).map(([k, n]) => ({ key: `k-${k}`, cls: 'kind', text: `${t(`recon.kind.${k}` as 'recon.kind.kit_only')} ${n}` })),
    ...Object.entries(day.byResolution)
      .filter(([r]) => r !== 'open')
      .map(([r, n]) => ({ key: `r-${r}`, cls: r, text: `${t(`recon.res.${r}` as 'recon.res.open')} ${n}` })),
  ];
  return (
    <button type="button" className="recon-day" data-testid="console-recon-day" data-date={day.date} disabled={day.state !== 'done'} onClick={onOpen}>
      <span className="at">{day.date}</span>
      <span className="muted channel">{day.channel}</span>
      <span className={`chip ${day.state}`}>{t(`recon.state.${day.state}`)}</span>
      {day.state === 'done' && (
        <span className="counts">
          <span className={`chip ${day.open ? 'open' : ''}`} data-testid="console-recon-open">
            {t('recon.open', { count: day.open })}
          </span>
          {counts.map((c) => (
            <span key={c.key} className={`chip ${c.cls}`}>
              {c.text}
            </span>
          ))}
        </span>
      )}
      {day.error && (
        <span className="muted error-text" title={day.error}>
          {day.error}
        </span>
      )}
    </button>
  );
}

export function ReconciliationDayView({ date }: { date: string }) {
  const { recon, route } = useConsoleApp();
  const s = useStore(recon, (x) => x);
  const t = useT();
  useEffect(() => {
    void recon.getState().openDay(date);
  }, [recon, date]);

  const reports = s.date === date ? s.reports : null;
  return (
    <section className="recon">
      <div className="order-top">
        <button type="button" className="link" data-testid="console-recon-back" onClick={() => route.getState().go({ name: 'reconciliation' })}>
          {t('recon.back')}
        </button>
        <button type="button" data-testid="console-recon-day-refresh" disabled={s.loading} onClick={() => void recon.getState().openDay(date)}>
          {t('order.refreshing')}
        </button>
      </div>
      <div className="card">
        <h1>{t('recon.day', { date })}</h1>
        <p className="muted">{t('recon.help')}</p>
      </div>
      {s.message && (
        <p className="message error" role="alert" data-testid="console-recon-message">
          {t(s.message)}
        </p>
      )}
      {reports?.map((r) => (
        <div key={r.channel} className="card" data-testid="console-recon-report">
          <div className="title-row">
            <h2 className="channel">{r.channel}</h2>
            <span className="muted">{t('recon.differences', { count: r.differences.length })}</span>
          </div>
          {r.differences.length === 0 && <p className="muted">{t('recon.noDifferences')}</p>}
          <ul className="diffs">
            {r.differences.map((d) => (
              <Difference
                key={`${d.kind}/${d.outTradeNo}/${d.outRefundNo ?? ''}`}
                d={d}
                t={t}
                onOrder={(prepayId) => route.getState().go({ name: 'order', prepayId })}
              />
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}

function Difference({ d, t, onOrder }: { d: ReconciliationDifference; t: Translator; onOrder: (prepayId: string) => void }) {
  return (
    <li className={`diff ${d.resolution}`} data-testid="console-recon-diff" data-kind={d.kind} data-resolution={d.resolution}>
      <div className="diff-head">
        <span className="chip kind">{t(`recon.kind.${d.kind}`)}</span>
        <span className={`chip ${d.resolution}`} data-testid="console-recon-resolution">
          {t(`recon.res.${d.resolution}`)}
        </span>
        {d.prepayId && (
          <button type="button" className="link id" data-testid="console-recon-order" onClick={() => onOrder(d.prepayId!)}>
            {t('recon.order')} {d.prepayId}
          </button>
        )}
      </div>
      <div className="diff-nos">
        <span className="muted">{t('recon.trade')}</span>
        <span className="id">{d.outTradeNo}</span>
        {d.outRefundNo && (
          <>
            <span className="muted">{t('recon.refund')}</span>
            <span className="id">{d.outRefundNo}</span>
          </>
        )}
      </div>
      <div className="diff-sides">
        <Side label={t('recon.kit')} view={d.kit} t={t} testId="console-recon-kit" />
        <Side label={t('recon.channel')} view={d.channel} t={t} testId="console-recon-channel" />
      </div>
    </li>
  );
}

function Side({ label, view, t, testId }: { label: string; view: ReconciliationDifference['kit']; t: Translator; testId: string }) {
  // The kit's side is an order or refund state the console already names; the channel's is its own word (SUCCESS, REFUND…).
  const status = view && (isMessageKey(`status.${view.status}`) ? t(`status.${view.status}` as 'status.finish') : view.status);
  return (
    <span className="side" data-testid={testId}>
      <span className="muted">{label}</span>
      {view ? (
        <>
          <span className="chip">{status}</span>
          <Money value={view.amount} lang={t.lang} />
        </>
      ) : (
        <span className="muted">{t('recon.absent')}</span>
      )}
    </span>
  );
}
