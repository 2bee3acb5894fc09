/**
 * A background loop: runs `tick`, then waits `intervalMs` (or goes again at once when the tick
 * reports more work, or was poked while it ran), until stopped. Failures are logged and the loop
 * carries on.
 */
import type { Logger } from 'pino';

export interface Loop {
  /** Runs a tick now instead of waiting for the interval (e.g. after new work was queued). */
  poke(): void;
  stop(): Promise<void>;
}

export function startLoop(name: string, intervalMs: number, tick: () => Promise<boolean | void>, log: Logger): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  // Work queued while a tick runs may have been missed by it: a poke then means "once more".
  let poked = false;
  const finished = (async () => {
    while (!stopped) {
      let more = false;
      poked = false;
      try {
        more = (await tick()) === true || poked;
      } catch (err) {
        log.error({ err, worker: name }, 'worker tick failed');
      }
      if (stopped) break;
      if (more) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, intervalMs);
      });
      wake = undefined;
    }
  })();
  return {
    poke() {
      poked = true;
      if (timer) clearTimeout(timer);
      wake?.();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await finished;
    },
  };
}
