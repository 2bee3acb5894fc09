/** Where a front end is, kept in the URL's hash so that reloads and links come back to the same screen. */
import { createStore } from 'zustand/vanilla';

export interface RouteState<R> {
  route: R;
  go(route: R): void;
}

/**
 * Follows `location.hash` both ways (back/forward and typed URLs included). `parse` reads a hash
 * (`#/…`, unknown ones being the home screen), `hashOf` writes one; a hash that means the route
 * already shown changes nothing.
 */
export function createHashRouteStore<R>(win: Window, parse: (hash: string) => R, hashOf: (route: R) => string) {
  const store = createStore<RouteState<R>>()((set) => ({
    route: parse(win.location.hash),
    go(route) {
      const hash = hashOf(route);
      if (win.location.hash !== hash) win.location.hash = hash;
      set({ route });
    },
  }));
  win.addEventListener('hashchange', () => {
    const next = parse(win.location.hash);
    if (hashOf(next) !== hashOf(store.getState().route)) store.setState({ route: next });
  });
  return store;
}
