/**
 * Reads of one row by key, gathered over an event-loop turn and sent as one statement. Under load
 * the notifications that arrive together each read the channel order they name before anything is
 * written; on PostgreSQL each read was a round trip of its own, and a round trip costs the service
 * more CPU than the statement's work (docs/performance.md). The reads of a turn are sent when its
 * I/O callbacks are done (`setImmediate`), so a lone read waits no timer, only the rest of its turn.
 *
 * Only reads outside a transaction belong here: a batch runs on the pool, and may see a write
 * committed after a caller asked (never one from before it: a caller's own awaited writes are done).
 */
export type ReadOne<R> = (key: string) => Promise<R | undefined>;

interface Waiter<R> {
  resolve(row: R | undefined): void;
  reject(error: unknown): void;
}

export function batchedRead<R>(
  /** A single key's read: what a turn with one key sends (a prepared statement). */
  one: ReadOne<R>,
  /** The rows of several distinct keys, in any order; a key without a row is left out. */
  many: (keys: string[]) => Promise<R[]>,
  keyOf: (row: R) => string,
): ReadOne<R> {
  let pending: Map<string, Array<Waiter<R>>> | null = null;

  function flush(batch: Map<string, Array<Waiter<R>>>) {
    pending = null;
    const keys = [...batch.keys()];
    const rows = keys.length === 1 ? one(keys[0]).then((row) => (row === undefined ? [] : [row])) : many(keys);
    rows.then(
      (found) => {
        const byKey = new Map(found.map((row) => [keyOf(row), row]));
        for (const [key, waiters] of batch) for (const w of waiters) w.resolve(byKey.get(key));
      },
      (error: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
      },
    );
  }

  return (key) =>
    new Promise<R | undefined>((resolve, reject) => {
      if (!pending) {
        const batch = new Map<string, Array<Waiter<R>>>();
        pending = batch;
        setImmediate(() => flush(batch));
      }
      const waiters = pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else pending.set(key, [{ resolve, reject }]);
    });
}
