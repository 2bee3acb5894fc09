/** All stores of the console, wired together; one instance per page. */
import { createContext, useContext } from 'react';
import { createHttpApi, type ConsoleApi } from '../api';
import { createSessionStore } from '@kit/web-common/session-store';
import { createLangStore, describeFailure, msg } from '../i18n/i18n';
import { createOrdersStore } from './orders-store';
import { createOrderStore } from './order-store';
import { createCallbacksStore } from './callbacks-store';
import { createReconStore } from './recon-store';
import { createRouteStore } from './route';

export function createConsoleApp(opts: { api?: (onUnauthorized: () => void) => ConsoleApi; win?: Window } = {}) {
  let onUnauthorized = () => {};
  const api = (opts.api ?? ((hook) => createHttpApi({ onUnauthorized: hook })))(() => onUnauthorized());
  const session = createSessionStore(api, { describeFailure, loginInvalid: msg('error.login_invalid') });
  onUnauthorized = () => session.getState().expired();
  return {
    api,
    session,
    lang: createLangStore(opts.win ?? window),
    route: createRouteStore(opts.win ?? window),
    orders: createOrdersStore(api),
    order: createOrderStore(api),
    callbacks: createCallbacksStore(api),
    recon: createReconStore(api),
  };
}

export type ConsoleApp = ReturnType<typeof createConsoleApp>;

export const ConsoleAppContext = createContext<ConsoleApp | null>(null);

export function useConsoleApp(): ConsoleApp {
  const app = useContext(ConsoleAppContext);
  if (!app) throw new Error('ConsoleAppContext is missing');
  return app;
}
