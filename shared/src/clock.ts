/**
 * The one clock (design 7.1): everything in the service that waits or compares with the time reads
 * a `Clock` given by the composition root. Production passes `systemClock`; a test passes a
 * `TestClock` (`test-clock.ts`) that it moves forward itself, so that a lifetime, a retry or a
 * schedule is reached by advancing the clock, not by waiting it out.
 */

/** A pending call of `Clock.setTimeout`. `unref` lets the process end while it is pending (Node's `Timeout`). */
export interface ClockTimer {
  unref(): ClockTimer;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once the clock has moved `ms` past now. */
  setTimeout(fn: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer | undefined): void;
  /** Resolves once the clock has moved `ms` past now, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A signal that aborts with a `TimeoutError` once the clock has moved `ms` past now (`AbortSignal.timeout` on this clock). */
  timeout(ms: number): AbortSignal;
}

/** `sleep` and `timeout` for any clock, from its `setTimeout`. */
export abstract class ClockBase implements Clock {
  abstract now(): number;
  abstract setTimeout(fn: () => void, ms: number): ClockTimer;
  abstract clearTimeout(timer: ClockTimer | undefined): void;

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        this.clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  timeout(ms: number): AbortSignal {
    const controller = new AbortController();
    // Like AbortSignal.timeout, it does not keep the process alive.
    this.setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
    return controller.signal;
  }
}

class SystemClock extends ClockBase {
  now(): number {
    return Date.now();
  }
  setTimeout(fn: () => void, ms: number): ClockTimer {
    return setTimeout(fn, ms);
  }
  clearTimeout(timer: ClockTimer | undefined): void {
    clearTimeout(timer as NodeJS.Timeout | undefined);
  }
  timeout(ms: number): AbortSignal {
    return AbortSignal.timeout(ms);
  }
}

/** The machine's clock. */
export const systemClock: Clock = new SystemClock();
