/**
 * React binding for zustand's vanilla stores, on the workspace's one React. (zustand's React entry
 * would import whichever React sits next to it in the workspace, which need not be the page's.)
 */
import { useSyncExternalStore } from 'react';
import type { StoreApi } from 'zustand/vanilla';

export function useStore<S, T>(store: StoreApi<S>, selector: (state: S) => T): T {
  const get = () => selector(store.getState());
  return useSyncExternalStore(store.subscribe, get, get);
}
