/**
 * A clock a test controls (design 7.1, after @sinonjs/fake-timers and Playwright's `page.clock`).
 *
 * It flows with the machine's time by default, so that whatever the test does not care about (a
 * poll, a network call's time limit) still happens; `advance('5m')` jumps it forward and fires, in
 * deadline order, every timer that became due, as a machine waking from sleep would. `freeze()`
 * stops it, so that nothing scheduled happens until the test advances it: that is how a test makes
 * one of two racing paths go first. `resume()` lets it flow again from where it stands.
 */
import { ClockBase, type Clock, type ClockTimer } from './clock';
import { parseDuration } from './duration';

const MAX_MACHINE_DELAY = 2 ** 31 - 1;

interface Pending {
  id: number;
  at: number;
  fn: () => void;
  ref: boolean;
}

class TestTimer implements ClockTimer {
  constructor(
    readonly pending: Pending,
    private readonly clock: TestClock,
  ) {}
  unref(): ClockTimer {
    this.pending.ref = false;
    this.clock.rearm();
    return this;
  }
}

export class TestClock extends ClockBase {
  /** Added to the machine's time while the clock flows. */
  private offset: number;
  /** The time it stands at while frozen. */
  private frozenAt: number | undefined;
  private timers: Pending[] = [];
  private nextId = 1;
  /** The machine timer set for the earliest pending timer while the clock flows. */
  private machineTimer: NodeJS.Timeout | undefined;

  constructor(opts: { start?: number | Date; frozen?: boolean } = {}) {
    super();
    const start = opts.start === undefined ? Date.now() : Number(opts.start);
    this.offset = start - Date.now();
    if (opts.frozen) this.frozenAt = start;
  }

  now(): number {
    return this.frozenAt ?? Date.now() + this.offset;
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const pending: Pending = { id: this.nextId++, at: this.now() + Math.max(0, ms), fn, ref: true };
    // Sorted by deadline, and in the order set for equal deadlines (as Node fires them).
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1].at > pending.at) i--;
    this.timers.splice(i, 0, pending);
    this.rearm();
    return new TestTimer(pending, this);
  }

  clearTimeout(timer: ClockTimer | undefined): void {
    if (!(timer instanceof TestTimer)) return;
    const i = this.timers.indexOf(timer.pending);
    if (i >= 0) this.timers.splice(i, 1);
    this.rearm();
  }

  /** Moves the clock forward (`'5m'`, `'30s'` or milliseconds) and fires the timers that became due. */
  advance(by: number | string): void {
    const ms = typeof by === 'number' ? by : parseDuration(by);
    if (ms < 0) throw new Error('a clock does not go back');
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offset += ms;
    this.fireDue();
  }

  /** Moves the clock to `at` if that is ahead of it. */
  advanceTo(at: number | Date): void {
    const ms = Number(at) - this.now();
    if (ms > 0) this.advance(ms);
  }

  /** Stops the clock where it stands: nothing scheduled happens until `advance`. */
  freeze(): void {
    this.frozenAt ??= this.now();
    this.rearm();
  }

  /** Lets a frozen clock flow again from where it stands. */
  resume(): void {
    if (this.frozenAt === undefined) return;
    this.offset = this.frozenAt - Date.now();
    this.frozenAt = undefined;
    this.fireDue();
  }

  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  /** Timers not yet fired (for a test that checks what is scheduled). */
  get pendingCount(): number {
    return this.timers.length;
  }

  /** Fires what is due; a timer set by one that fires is due only if its own deadline has come. */
  private fireDue(): void {
    const now = this.now();
    const due: Pending[] = [];
    while (this.timers.length && this.timers[0].at <= now) due.push(this.timers.shift()!);
    this.rearm();
    for (const t of due) t.fn();
  }

  /** @internal Sets the machine timer for the earliest deadline while the clock flows. */
  rearm(): void {
    if (this.machineTimer) clearTimeout(this.machineTimer);
    this.machineTimer = undefined;
    if (this.frozenAt !== undefined || !this.timers.length) return;
    // Node's timers hold at most 2^31 - 1 ms; a later deadline is looked at again then.
    this.machineTimer = setTimeout(() => this.fireDue(), Math.min(MAX_MACHINE_DELAY, Math.max(0, this.timers[0].at - this.now())));
    // The process may end while only unref'd timers are pending, as with Node's own.
    if (!this.timers.some((t) => t.ref)) this.machineTimer.unref();
  }
}

/** A clock that tells the time `now` gives (a test's own variable), with the machine's timers: for units that only read the time. */
export function clockReading(now: () => number): Clock {
  return new (class extends ClockBase {
    now = now;
    setTimeout(fn: () => void, ms: number): ClockTimer {
      return setTimeout(fn, ms);
    }
    clearTimeout(timer: ClockTimer | undefined): void {
      clearTimeout(timer as NodeJS.Timeout | undefined);
    }
  })();
}
