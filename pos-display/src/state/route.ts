/**
 * Where the display is, kept in the URL hash so that a reload comes back to the same screen and
 * the same order: `#/` (amount), `#/pay/<prepayId>`, `#/orders`, `#/points`.
 */
import { createHashRouteStore } from '@kit/web-common/hash-route';

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

/** Follows `location.hash` both ways (back/forward and typed URLs included). */
export const createRouteStore = (win: Window = window) => createHashRouteStore(win, parseRoute, routeHash);
