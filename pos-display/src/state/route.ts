/**
 * Where the display is, kept in the URL hash so that a reload comes back to the same screen and
 * the same order: `#/` (amount), `#/pay/<prepayId>`, `#/orders`, `#/points`.
 */
import { createStore } from 'zustand/vanilla';

export type Route = { name: 'charge' } | { name: 'pay'; prepayId: string } | { name: 'orders' } | { name: 'points' };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const pay = /^\/pay\/([0-9A-Za-z]{1,64})$/.exec(path);
  if (pay) return { name: 'pay', prepayId: pay[1] };
  if (path === '/orders') return { name: 'orders' };
  if (path === '/points') return { name: 'points' };
  return { name: 'charge' };
}

export function routeHash(route: Route): string {
  switch (route.name) {
    case 'pay':
      return `#/pay/${route.prepayId}`;
    case 'orders':
      return '#/orders';
    case 'points':
      return '#/points';
    default:
      return '#/';
  }
}

export interface RouteState {
  route: Route;
  go(route: Route): void;
}

/** Follows `location.hash` both ways (back/forward and typed URLs included). */
export function createRouteStore(win: Window = window) {
  const store = createStore<RouteState>()((set) => ({
    route: parseRoute(win.location.hash),
    go(route) {
      const hash = routeHash(route);
      if (win.location.hash !== hash) win.location.hash = hash;
      set({ route });
    },
  }));
  win.addEventListener('hashchange', () => {
    const next = parseRoute(win.location.hash);
    if (routeHash(next) !== routeHash(store.getState().route)) store.setState({ route: next });
  });
  return store;
}
