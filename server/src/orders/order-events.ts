/**
 * Wake-ups for held detail calls (4.2). In-process: a map from prepay id to waiters. Across
 * instances on PostgreSQL, `PgOrderEventBridge` relays each publish through LISTEN/NOTIFY.
 * Publish only after the change has committed: a woken waiter re-reads the order.
 */

export type OrderEvent = { prepayId: string; status: string };
type Waiter = () => void;

export class OrderEvents {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly listeners = new Set<(e: OrderEvent) => void>();
  private readonly relays = new Set<(e: OrderEvent) => void>();
  private closed = false;

  /** Resolves when the order is published, the time passes, the signal aborts or the service closes. */
  wait(prepayId: string, timeoutMs: number, signal?: AbortSignal): { ready: Promise<void>; cancel: () => void } {
    let done!: () => void;
    const ready = new Promise<void>((resolve) => (done = resolve));
    if (this.closed || signal?.aborted) {
      done();
      return { ready, cancel: () => undefined };
    }
    let set = this.waiters.get(prepayId);
    if (!set) this.waiters.set(prepayId, (set = new Set()));
    const finish: Waiter = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      const s = this.waiters.get(prepayId);
      if (s) {
        s.delete(finish);
        if (s.size === 0) this.waiters.delete(prepayId);
      }
      done();
    };
    const timer = setTimeout(finish, Math.max(0, timeoutMs));
    signal?.addEventListener('abort', finish, { once: true });
    set.add(finish);
    return { ready, cancel: finish };
  }

  /** Wakes this instance's waiters and tells other instances (through the relay, if any). */
  publish(event: OrderEvent): void {
    this.deliver(event);
    for (const relay of this.relays) relay(event);
  }

  /** Delivers an event that arrived from another instance (no relay back). */
  deliver(event: OrderEvent): void {
    const set = this.waiters.get(event.prepayId);
    if (set) for (const w of [...set]) w();
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
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }

  /** Releases every held call at once (shutdown): they answer with the current state. */
  close(): void {
    this.closed = true;
    for (const set of [...this.waiters.values()]) for (const w of [...set]) w();
  }
}
