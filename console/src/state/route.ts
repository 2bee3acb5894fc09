/** Where the console is: the order list, one order, the callbacks, the reconciled days or one day's report; kept in the URL's hash so reloads and links work. */
import { createHashRouteStore } from '@kit/web-common/hash-route';

export type Route =
  { name: 'orders' } | { name: 'order'; prepayId: string } | { name: 'callbacks' } | { name: 'reconciliation' } | { name: 'reconciliationDay'; date: string };

export function parseHash(hash: string): Route {
  const order = /^#\/orders\/([0-9A-Za-z]{1,64})$/.exec(hash);
  if (order) return { name: 'order', prepayId: order[1] };
  if (hash === '#/callbacks') return { name: 'callbacks' };
  const day = /^#\/reconciliation\/(\d{4}-\d{2}-\d{2})$/.exec(hash);
  if (day) return { name: 'reconciliationDay', date: day[1] };
  if (hash === '#/reconciliation') return { name: 'reconciliation' };
  return { name: 'orders' };
}

export const routeHash = (r: Route) =>
  r.name === 'order' ? `#/orders/${r.prepayId}` : r.name === 'reconciliationDay' ? `#/reconciliation/${r.date}` : `#/${r.name}`;

export const createRouteStore = (win: Window = window) => createHashRouteStore(win, parseHash, routeHash);
