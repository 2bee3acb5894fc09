/**
 * A background loop: runs `tick`, then waits `intervalMs` on the service's clock (or goes again at
 * once when the tick reports more work, or was poked while it ran), until stopped. Failures are
 * logged and the loop carries on.
 */
import type { Logger } from 'pino';
import type { Clock } from '@kit/shared/clock';

/**
 * What a tick reports: `more` (work is left: tick again at once; `true` says the same), `worked`
 * (it did something, nothing is left), or nothing (there was nothing to do).
 */
export type TickResult = 'more' | 'worked' | boolean | void;

export interface Loop {
  /** Runs a tick now instead of waiting for the interval (e.g. after new work was queued). */
  poke(): void;
  /**
   * Runs a tick now and resolves once the loop has found nothing left to do, with whether it did
   * any work meanwhile (what a test's `settle()` waits for after moving the clock).
   */
  settle(): Promise<boolean>;
  stop(): Promise<void>;
}

export function startLoop(name: string, intervalMs: number, tick: () => Promise<TickResult>, log: Logger, clock: Clock): Loop {
  let stopped = false;
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  let wake: (() => void) | undefined;
  // Work queued while a tick runs may have been missed by it: a poke then means "once more".
  let poked = false;
  // Settles asked for: each ends after a tick that started after it and left nothing to do.
  let settling: Array<{ worked: boolean; started: boolean; resolve: (worked: boolean) => void }> = [];
  const finished = (async () => {
    while (!stopped) {
      let result: TickResult;
      poked = false;
      for (const s of settling) s.started = true;
      try {
        result = await tick();
      } catch (err) {
        log.error({ err, worker: name }, 'worker tick failed');
        // Its work is not done; it is tried again after the interval, not at once (the database may be away).
        result = 'worked';
      }
      const worked = result === true || result === 'more' || result === 'worked';
      const more = worked && result !== 'worked' ? true : poked;
      for (const s of settling) if (s.started) s.worked ||= worked;
      if (!more || stopped) settling = settling.filter((s) => (s.started ? (s.resolve(s.worked), false) : true));
      if (stopped) break;
      if (more) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = clock.setTimeout(resolve, intervalMs);
      });
      wake = undefined;
    }
    for (const s of settling) s.resolve(s.worked);
  })();
  const poke = () => {
    poked = true;
    clock.clearTimeout(timer);
    wake?.();
  };
  return {
    poke,
    settle() {
      if (stopped) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        settling.push({ worked: false, started: false, resolve });
        poke();
      });
    },
    async stop() {
      stopped = true;
      clock.clearTimeout(timer);
      wake?.();
      await finished;
    },
  };
}
