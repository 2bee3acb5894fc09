/** The 4.2 long-poll loop, free of Node-only imports so browser code can share it. */
import { KitApiError } from './errors';
import type { PrepayDetail } from './api/prepay';

export interface WaitOptions<T extends PrepayDetail = PrepayDetail> {
  signal?: AbortSignal;
  /** Called with every answer, `active` ones included (for a live status display). */
  onUpdate?: (detail: T) => void;
  /** Called with every transient failure before the immediate retry. */
  onError?: (error: unknown) => void;
}

/**
 * The loop shared by every long-poll caller (client, POS store, mini-program). The first retry is
 * immediate, as the specification asks; only a run of back-to-back failures (the network is down
 * and each call fails at once) is spaced out, so that a dead network does not become a busy loop.
 */
export async function waitLoop<T extends PrepayDetail = PrepayDetail>(fetchDetail: () => Promise<T>, opts: WaitOptions<T> = {}): Promise<T> {
  let failures = 0;
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    try {
      const detail = await fetchDetail();
      failures = 0;
      opts.onUpdate?.(detail);
      if (detail.status !== 'active') return detail;
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      if (e instanceof KitApiError && e.httpStatus < 500) throw e;
      opts.onError?.(e);
      failures += 1;
      if (failures > 1) await pause(Math.min(2_000, 100 * 2 ** (failures - 2)), opts.signal);
    }
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
