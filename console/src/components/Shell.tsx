/** The logged-in frame: the merchant, the views, the language switch, logout; and the view of the current route. */
import { useConsoleApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import { LangSwitch } from './LangSwitch';
import { OrdersView } from './OrdersView';
import { OrderView } from './OrderView';
import { CallbacksView } from './CallbacksView';
import { ReconciliationDayView, ReconciliationView } from './ReconciliationView';

export function Shell() {
  const { route, session } = useConsoleApp();
  const current = useStore(route, (s) => s.route);
  const who = useStore(session, (s) => s.session);
  const t = useT();
  const tab = (name: 'orders' | 'callbacks' | 'reconciliation', on: boolean) => (
    <button
      type="button"
      data-testid={`console-tab-${name}`}
      className={on ? 'on' : ''}
      aria-current={on ? 'page' : undefined}
      onClick={() => route.getState().go({ name })}
    >
      {t(`tab.${name}`)}
    </button>
  );
  return (
    <div className="shell">
      <header className="topbar">
        <div className="who" title={who?.displayName}>
          <span className="who-name">{who?.displayName}</span>
          <span className="who-id">{who?.merchantId}</span>
        </div>
        <nav className="tabs" aria-label={t('shell.nav')}>
          {tab('orders', current.name === 'orders' || current.name === 'order')}
          {tab('callbacks', current.name === 'callbacks')}
          {tab('reconciliation', current.name === 'reconciliation' || current.name === 'reconciliationDay')}
        </nav>
        <LangSwitch />
        <button type="button" className="logout" data-testid="console-logout" onClick={() => void session.getState().logout()}>
          {t('shell.logout')}
        </button>
      </header>
      <main className="view">
        {current.name === 'orders' && <OrdersView />}
        {current.name === 'order' && <OrderView key={current.prepayId} prepayId={current.prepayId} />}
        {current.name === 'callbacks' && <CallbacksView />}
        {current.name === 'reconciliation' && <ReconciliationView />}
        {current.name === 'reconciliationDay' && <ReconciliationDayView key={current.date} date={current.date} />}
      </main>
    </div>
  );
}
