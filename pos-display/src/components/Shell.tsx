/** The logged-in frame: merchant name, the three modes, logout; and the screen of the current route. */
import { usePosApp } from '../state/app';
import { useStore } from '../state/use-store';
import type { Route } from '../state/route';
import { ChargeScreen } from './ChargeScreen';
import { PayScreen } from './PayScreen';
import { OrdersScreen } from './OrdersScreen';
import { PointsScreen } from './PointsScreen';

const TABS: Array<{ label: string; route: Route; active: Route['name'][] }> = [
  { label: 'Charge', route: { name: 'charge' }, active: ['charge', 'pay'] },
  { label: 'Today’s orders', route: { name: 'orders' }, active: ['orders'] },
  { label: 'Points', route: { name: 'points' }, active: ['points'] },
];

export function Shell() {
  const { route, session } = usePosApp();
  const current = useStore(route, (s) => s.route);
  const who = useStore(session, (s) => s.session);

  return (
    <div className="shell">
      <header className="topbar">
        <div className="shop" data-testid="shop-name">
          {who?.displayName}
          <span className="shop-id">{who?.merchantId}</span>
        </div>
        <nav className="tabs">
          {TABS.map((t) => (
            <button
              key={t.label}
              type="button"
              data-testid={`tab-${t.route.name}`}
              className={t.active.includes(current.name) ? 'on' : ''}
              aria-current={t.active.includes(current.name) ? 'page' : undefined}
              onClick={() => route.getState().go(t.route)}
            >
              {t.label}
            </button>
          ))}
        </nav>
        <button type="button" className="logout" data-testid="logout" onClick={() => void session.getState().logout()}>
          Log out
        </button>
      </header>
      {current.name === 'charge' && <ChargeScreen />}
      {current.name === 'pay' && <PayScreen key={current.prepayId} prepayId={current.prepayId} />}
      {current.name === 'orders' && <OrdersScreen />}
      {current.name === 'points' && <PointsScreen />}
    </div>
  );
}
