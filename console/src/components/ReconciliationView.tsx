/**
 * The reconciled days with the login's merchants' differences counted, and "Reconcile now" for a
 * day; a day's report, open differences first, linking to the orders the kit knows, with what each
 * kind of difference means and what to do about it written on the page.
 */
import { useEffect, useState } from 'react';
import type { ConsoleReconciliationDay, ConsoleReconciliationReport } from '@kit/shared/api/console';
import type { DifferenceKind, ReconciliationDifference } from '@kit/shared/api/reconciliation';
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import type { Translator } from '../i18n/i18n';
import { chinaToday } from '../state/recon-store';
import { Money } from '@kit/web-common/Money';
import { DayField } from './DayField';

const KINDS: readonly DifferenceKind[] = ['status_mismatch', 'amount_mismatch', 'channel_only', 'kit_only'];

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
      <ReconcileNow />
      {s.message && (
        <p className="message error" role="alert">
          {t(s.message)}
        </p>
      )}
      {s.days && (
        <div className="card list">
          {s.days.length === 0 ? (
            <p className="muted">{t('recon.none')}</p>
          ) : (
            <table className="report recon-days">
              <thead>
                <tr>
                  <th scope="col">{t('recon.col.date')}</th>
                  <th scope="col">{t('recon.col.channel')}</th>
                  <th scope="col">{t('recon.col.state')}</th>
                  <th scope="col">{t('recon.col.found')}</th>
                </tr>
              </thead>
              <tbody>
                {s.days.map((d) => (
                  <DayRow key={`${d.date}/${d.channel}`} day={d} t={t} onOpen={() => route.getState().go({ name: 'reconciliationDay', date: d.date })} />
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </section>
  );
}

/** "Reconcile now": a China date (today at the latest), its outcome per channel, and the way to its report. */
function ReconcileNow({ date: fixed }: { date?: string }) {
  const { recon, route } = useConsoleApp();
  const now = useStore(recon, (x) => x.now);
  const t = useT();
  const today = chinaToday();
  const [picked, setPicked] = useState(() => fixed ?? today);
  const date = fixed ?? picked;
  const mine = now.date === date ? now : null;
  return (
    <div className="card reconcile-now" data-testid="console-reconcile-now">
      <h2>{t('recon.now.title')}</h2>
      <p className="muted">{t('recon.now.lead')}</p>
      <div className="now-row">
        {!fixed && <DayField value={picked} max={today} label={t('recon.col.date')} testId="console-reconcile-day" onChange={setPicked} />}
        <button
          type="button"
          className="primary"
          data-testid="console-reconcile-run"
          disabled={now.running}
          onClick={() => void recon.getState().reconcileNow(date)}
        >
          {now.running && now.date === date ? t('recon.now.running') : t('recon.now.run')}
        </button>
      </div>
      {mine?.message && (
        <p className="message error" role="alert" data-testid="console-reconcile-message">
          {t(mine.message)}
        </p>
      )}
      {mine?.runs && (
        <ul className="runs" data-testid="console-reconcile-result">
          {mine.runs.map((r) => (
            <li key={r.channel} className={r.outcome} data-outcome={r.outcome}>
              {t(`recon.now.${r.outcome}`, { channel: t.word('channel', r.channel), error: r.error ?? '' })}
            </li>
          ))}
        </ul>
      )}
      {!fixed && mine?.runs?.some((r) => r.outcome === 'done') && (
        <button type="button" className="link" data-testid="console-reconcile-open" onClick={() => route.getState().go({ name: 'reconciliationDay', date })}>
          {t('recon.now.open')}
        </button>
      )}
    </div>
  );
}

function DayRow({ day, t, onOpen }: { day: ConsoleReconciliationDay; t: Translator; onOpen: () => void }) {
  const counts = [
    ...Object.entries(day.byKind).map(([k, n]) => ({
      key: `k-${k}`,
      cls: 'kind',
      text: t('recon.countOf', { what: t(`recon.kind.${k as DifferenceKind}`), count: n }),
    })),
    ...Object.entries(day.byResolution)
      .filter(([r]) => r !== 'open')
      .map(([r, n]) => ({ key: `r-${r}`, cls: r, text: t('recon.countOf', { what: t(`recon.res.${r}` as 'recon.res.open'), count: n }) })),
  ];
  const done = day.state === 'done';
  return (
    <tr className={`recon-day${done ? ' openable' : ''}`} data-testid="console-recon-day" data-date={day.date} onClick={done ? onOpen : undefined}>
      <td className="at">
        {done ? (
          <button
            type="button"
            className="link"
            onClick={(e) => {
              e.stopPropagation();
              onOpen();
            }}
          >
            {t.date(day.date)}
          </button>
        ) : (
          t.date(day.date)
        )}
      </td>
      <td className="channel" title={day.channel}>
        {t.word('channel', day.channel)}
      </td>
      <td>
        <span className={`chip ${day.state}`}>{t(`recon.state.${day.state}`)}</span>
      </td>
      <td className="found">
        {done && (
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
      </td>
    </tr>
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
  const kinds = KINDS.filter((k) => reports?.some((r) => r.differences.some((d) => d.kind === k)));
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
        <h1>{t('recon.day', { date: t.date(date) })}</h1>
        <p className="muted">{t('recon.help')}</p>
      </div>
      {s.date === date && s.notReconciled && (
        <p className="message" data-testid="console-recon-message">
          {t('recon.notYet')}
        </p>
      )}
      {s.date === date && (s.notReconciled || s.now.date === date) && <ReconcileNow date={date} />}
      {s.message && (
        <p className="message error" role="alert" data-testid="console-recon-message">
          {t(s.message)}
        </p>
      )}
      {reports?.map((r) => (
        <div key={r.channel} className="card" data-testid="console-recon-report">
          <div className="title-row">
            <h2 className="channel" title={r.channel}>
              {t.word('channel', r.channel)}
            </h2>
            <span className="muted">{t.count('recon.differences', r.differences.length)}</span>
          </div>
          <Totals totals={r.totals} t={t} />
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
      {kinds.length > 0 && (
        <div className="card explain" data-testid="console-recon-explain">
          <h2>{t('recon.explain.title')}</h2>
          <dl>
            {kinds.map((k) => (
              <div key={k} data-kind={k}>
                <dt>
                  <span className="chip kind">{t(`recon.kind.${k}`)}</span>
                </dt>
                <dd>{t(`recon.explain.${k}`)}</dd>
              </div>
            ))}
          </dl>
        </div>
      )}
    </section>
  );
}

/** The login's merchants' share of a channel's bill, as `kit reconcile` prints a bill's totals. */
function Totals({ totals, t }: { totals: ConsoleReconciliationReport['totals']; t: Translator }) {
  const rows = [
    { key: 'payments', count: totals.payments.count, amount: totals.payments.amount },
    { key: 'refunds', count: totals.refunds.count, amount: totals.refunds.amount },
    { key: 'fees', amount: totals.fees },
    { key: 'net', amount: totals.net },
  ] as const;
  return (
    <dl className="recon-totals" data-testid="console-recon-totals" aria-label={t('recon.totals')}>
      {rows.map((r) => (
        <div key={r.key} data-total={r.key}>
          <dt className="muted">{t(`recon.totals.${r.key}`)}</dt>
          <dd>
            {'count' in r && <span className="muted count">{t('recon.totals.count', { count: r.count })} </span>}
            <Money value={r.amount} lang={t.lang} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Difference({ d, t, onOrder }: { d: ReconciliationDifference; t: Translator; onOrder: (prepayId: string) => void }) {
  const refund = !!d.outRefundNo;
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
        {/* The kit's side is an order status (a refund's state for a refund); the channel's is its bill's word, translated too. */}
        <Side label={t('recon.kit')} view={d.kit} status={d.kit && t.word(refund ? 'refund' : 'status', d.kit.status)} t={t} testId="console-recon-kit" />
        <Side
          label={t('recon.channel')}
          view={d.channel}
          status={d.channel && t.word(refund ? 'billRefund' : 'billStatus', d.channel.status)}
          t={t}
          testId="console-recon-channel"
        />
      </div>
    </li>
  );
}

function Side({
  label,
  view,
  status,
  t,
  testId,
}: {
  label: string;
  view: ReconciliationDifference['kit'];
  status: string | null;
  t: Translator;
  testId: string;
}) {
  return (
    <span className="side" data-testid={testId}>
      <span className="muted">{label}</span>
      {view ? (
        <>
          <span className="chip" title={view.status}>
            {status}
          </span>
          <Money value={view.amount} lang={t.lang} />
        </>
      ) : (
        <span className="muted">{t('recon.absent')}</span>
      )}
    </span>
  );
}
