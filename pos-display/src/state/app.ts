/** All stores of the display, wired together; one instance per page (tests build their own). */
import { createContext, useContext } from 'react';
import { createHttpApi, type PosApi } from '../api/client';
import { createSessionStore } from './session-store';
import { createSaleStore } from './sale-store';
import { createOrdersStore, type OrdersOptions } from './orders-store';
import { createPointsStore, type PointsOptions } from './points-store';
import { createRouteStore } from './route';
import { createLangStore } from '../i18n/i18n';

export interface PosAppOptions {
  /** The router API; by default the real one, whose 401s end the session. */
  api?: (onUnauthorized: () => void) => PosApi;
  win?: Window;
  orders?: OrdersOptions;
  points?: PointsOptions;
}

export function createPosApp(opts: PosAppOptions = {}) {
  let onUnauthorized = () => {};
  const api = (opts.api ?? ((hook) => createHttpApi({ onUnauthorized: hook })))(() => onUnauthorized());
  const route = createRouteStore(opts.win ?? window);
  const lang = createLangStore(opts.win ?? window);
  const sale = createSaleStore(api);
  const orders = createOrdersStore(api, opts.orders);
  const points = createPointsStore(api, opts.points);
  // Leaving the session stops everything that talks to the router.
  const session = createSessionStore(api, () => {
    sale.getState().reset();
    orders.getState().stop();
    points.getState().stop();
  });
  onUnauthorized = () => session.getState().expired();
  return { api, route, lang, session, sale, orders, points };
}

export type PosApp = ReturnType<typeof createPosApp>;

export const PosAppContext = createContext<PosApp | null>(null);

export function usePosApp(): PosApp {
  const app = useContext(PosAppContext);
  if (!app) throw new Error('PosAppContext is missing');
  return app;
}
