/** The logged-in frame: merchant name, the three modes, the language switch, logout; and the screen of the current route. */
import { usePosApp } from '../state/app';
import { useStore } from '@kit/web-common/use-store';
import { useT } from '../i18n/use-t';
import type { MessageKey } from '../i18n/i18n';
import type { Route } from '../state/route';
import { ChargeScreen } from './ChargeScreen';
import { PayScreen } from './PayScreen';
import { OrdersScreen } from './OrdersScreen';
import { PointsScreen } from './PointsScreen';
import { LangSwitch } from './LangSwitch';

const TABS: Array<{ label: MessageKey; route: Route; active: Route['name'][] }> = [
  { label: 'tab.charge', route: { name: 'charge' }, active: ['charge', 'pay'] },
  { label: 'tab.orders', route: { name: 'orders' }, active: ['orders'] },
  { label: 'tab.points', route: { name: 'points' }, active: ['points'] },
];

export function Shell() {
  const { route, session } = usePosApp();
  const current = useStore(route, (s) => s.route);
  const who = useStore(session, (s) => s.session);
  const t = useT();

  return (
    <div className="shell">
      <header className="topbar">
        <div className="shop" data-testid="shop-name" title={who?.displayName}>
          <span className="shop-name">{who?.displayName}</span>
          <span className="shop-id">{who?.merchantId}</span>
        </div>
        <nav className="tabs" aria-label={t('shell.nav')}>
          {TABS.map((tab) => (
            <button
              key={tab.label}
              type="button"
              data-testid={`tab-${tab.route.name}`}
              className={tab.active.includes(current.name) ? 'on' : ''}
              aria-current={tab.active.includes(current.name) ? 'page' : undefined}
              onClick={() => route.getState().go(tab.route)}
            >
              {t(tab.label)}
            </button>
          ))}
        </nav>
        <LangSwitch />
        <button type="button" className="logout" data-testid="logout" onClick={() => void session.getState().logout()}>
          {t('shell.logout')}
        </button>
      </header>
      {current.name === 'charge' && <ChargeScreen />}
      {current.name === 'pay' && <PayScreen key={current.prepayId} prepayId={current.prepayId} />}
      {current.name === 'orders' && <OrdersScreen />}
      {current.name === 'points' && <PointsScreen />}
    </div>
  );
}
