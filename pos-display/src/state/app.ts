/** All stores of the display, wired together; one instance per page (tests build their own). */
import { createContext, useContext } from 'react';
import { createHttpApi, type PosApi } from '../api/client';
import { createSessionStore } from '@kit/web-common/session-store';
import { createSaleStore } from './sale-store';
import { createCodePayStore } from './code-pay-store';
import { createOrdersStore, type OrdersOptions } from './orders-store';
import { createPointsStore, type PointsOptions } from './points-store';
import { createRouteStore } from './route';
import { createLangStore, msg } from '../i18n/i18n';
import { describeFailure } from '../i18n/failure';

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
  const codePay = createCodePayStore(api);
  const orders = createOrdersStore(api, opts.orders);
  const points = createPointsStore(api, { storage: localStorageOf(opts.win ?? window), ...opts.points });
  // Leaving the session stops everything that talks to the router.
  const session = createSessionStore(api, { describeFailure, loginInvalid: msg('error.login_invalid') }, () => {
    sale.getState().reset();
    codePay.getState().clear();
    orders.getState().stop();
    points.getState().stop();
  });
  onUnauthorized = () => session.getState().expired();
  return { api, route, lang, session, sale, codePay, orders, points };
}

/** The page's localStorage, or none where the browser refuses it (private modes). */
function localStorageOf(win: Window): Storage | undefined {
  try {
    return win.localStorage;
  } catch {
    return undefined;
  }
}

export type PosApp = ReturnType<typeof createPosApp>;

export const PosAppContext = createContext<PosApp | null>(null);

export function usePosApp(): PosApp {
  const app = useContext(PosAppContext);
  if (!app) throw new Error('PosAppContext is missing');
  return app;
}
