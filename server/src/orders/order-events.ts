/**
 * Wake-ups for held detail calls (4.2). In-process: a map from prepay id to waiters. Across
 * instances on PostgreSQL, `PgOrderEventBridge` relays each publish through LISTEN/NOTIFY.
 * Publish only after the change has committed: a woken waiter re-reads the order.
 *
 * A busy shop holds thousands of calls at once, so a waiter is one small object: no timer of its
 * own (one timer serves a queue ordered by deadline) and no Set for the common single waiter of an
 * order (the heap it saves per held call: docs/performance.md, "What the speed tricks buy").
 */

import type { Clock, ClockTimer } from '@kit/shared/clock';

export type OrderEvent = { prepayId: string; status: string };

/** What a wait listens to for its caller going away: an AbortSignal, or anything with these three members. */
export interface WaitSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

class Waiter {
  done = false;
  /** Ends the wait; given to the caller and to the signal. */
  cancel: () => void = noop;
  constructor(
    readonly prepayId: string,
    readonly deadline: number,
    public resolve: (() => void) | undefined,
    public signal: WaitSignal | undefined,
  ) {}
}

const noop = () => undefined;

export class OrderEvents {
  private readonly waiters = new Map<string, Waiter | Waiter[]>();
  /** Every unfinished waiter, ascending by deadline, from `head` on; finished ones are skipped when reached and swept now and then. */
  private queue: Waiter[] = [];
  private head = 0;
  private finishedInQueue = 0;
  private timer?: ClockTimer;
  private timerAt = Infinity;
  private live = 0;
  private readonly listeners = new Set<(e: OrderEvent) => void>();
  private readonly relays = new Set<(e: OrderEvent) => void>();
  private closed = false;

  constructor(private readonly clock: Clock) {}

  /** Resolves when the order is published, the time passes, the signal aborts or the service closes. */
  wait(prepayId: string, timeoutMs: number, signal?: WaitSignal): { ready: Promise<void>; cancel: () => void } {
    let resolve!: () => void;
    const ready = new Promise<void>((r) => (resolve = r));
    if (this.closed || signal?.aborted) {
      resolve();
      return { ready, cancel: noop };
    }
    const w = new Waiter(prepayId, this.clock.now() + Math.max(0, timeoutMs), resolve, signal);
    w.cancel = () => this.finish(w);
    const others = this.waiters.get(prepayId);
    if (others === undefined) this.waiters.set(prepayId, w);
    else if (Array.isArray(others)) others.push(w);
    else this.waiters.set(prepayId, [others, w]);
    this.enqueue(w);
    this.live++;
    this.sweepIfMostlyFinished();
    signal?.addEventListener('abort', w.cancel, { once: true });
    return { ready, cancel: w.cancel };
  }

  /** Wakes this instance's waiters and tells other instances (through the relay, if any). */
  publish(event: OrderEvent): void {
    this.deliver(event);
    for (const relay of this.relays) relay(event);
  }

  /** Delivers an event that arrived from another instance (no relay back). */
  deliver(event: OrderEvent): void {
    const found = this.waiters.get(event.prepayId);
    if (found !== undefined) {
      if (Array.isArray(found)) for (const w of [...found]) this.finish(w);
      else this.finish(found);
      this.sweepIfMostlyFinished();
    }
    for (const l of this.listeners) l(event);
  }

  /** Listens to every local and relayed state change (e.g. to close a channel order on expiry). */
  onChange(listener: (e: OrderEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  addRelay(relay: (e: OrderEvent) => void): () => void {
    this.relays.add(relay);
    return () => this.relays.delete(relay);
  }

  get waiting(): number {
    return this.live;
  }

  /** Releases every held call at once (shutdown): they answer with the current state. */
  close(): void {
    this.closed = true;
    for (let i = this.head; i < this.queue.length; i++) this.finish(this.queue[i]);
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private finish(w: Waiter): void {
    if (w.done) return;
    w.done = true;
    this.live--;
    this.finishedInQueue++;
    const found = this.waiters.get(w.prepayId);
    if (found === w) this.waiters.delete(w.prepayId);
    else if (Array.isArray(found)) {
      const i = found.indexOf(w);
      if (i >= 0) found.splice(i, 1);
      if (found.length === 1) this.waiters.set(w.prepayId, found[0]);
    }
    w.signal?.removeEventListener('abort', w.cancel);
    const resolve = w.resolve!;
    // Finished waiters wait in the queue until their deadline: keep only the small object.
    w.resolve = undefined;
    w.signal = undefined;
    w.cancel = noop;
    resolve();
  }

  /** Deadlines almost always come in order (one hold time for all), so this is nearly always a push. */
  private enqueue(w: Waiter): void {
    const q = this.queue;
    let i = q.length;
    while (i > this.head && q[i - 1].deadline > w.deadline) i--;
    if (i === q.length) q.push(w);
    else q.splice(i, 0, w);
    if (w.deadline < this.timerAt) this.arm(w.deadline);
  }

  private arm(at: number): void {
    this.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => this.expire(), Math.max(0, at - this.clock.now()));
  }

  /** Ends every wait whose time has passed, then waits for the next deadline. */
  private expire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    const q = this.queue;
    while (this.head < q.length && (q[this.head].done || q[this.head].deadline <= now)) {
      const w = q[this.head++];
      if (w.done) this.finishedInQueue--;
      else {
        this.finish(w);
        this.finishedInQueue--;
      }
    }
    if (this.head < q.length) {
      if (this.head > 1024 && this.head * 2 > q.length) this.sweep();
      this.arm(this.queue[this.head].deadline);
    } else {
      this.queue = [];
      this.head = 0;
    }
  }

  /** Woken waiters stay queued until their deadline; past a thousand, once they outnumber the held ones, they go. */
  private sweepIfMostlyFinished(): void {
    if (this.finishedInQueue > 1024 && this.finishedInQueue > this.live) this.sweep();
  }

  /** Drops finished waiters from the queue (never while `expire` walks it). */
  private sweep(): void {
    this.queue = this.queue.slice(this.head).filter((w) => !w.done);
    this.head = 0;
    this.finishedInQueue = 0;
  }
}
