/**
 * Writes gathered over an event-loop turn and sent as one statement: under load the callbacks of a
 * rush end together (their receivers answer in the same turn), and each recorded its end with a
 * statement of its own, a round trip each on PostgreSQL (docs/performance.md, "A rush's callback
 * ends recorded together"). As `batched-read.ts` does for reads, the writes of a turn go out when
 * its I/O callbacks are done (`setImmediate`): a lone write waits no timer, and goes as it always
 * did (`one`).
 *
 * Each caller's promise settles when the statement that carried its write has: a write is never
 * reported done before it is. When a batch fails, each of its writes is sent again alone, so that
 * one write's failure stays its own, as when each went alone.
 */
interface Waiter<I, R> {
  item: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export function batchedWrite<I, R>(
  /** A single write: what a turn with one sends. */
  one: (item: I) => Promise<R>,
  /** Several writes in one statement (or as few as the database allows); their results in the same order. */
  many: (items: I[]) => Promise<R[]>,
): (item: I) => Promise<R> {
  let pending: Array<Waiter<I, R>> | null = null;

  function flush(batch: Array<Waiter<I, R>>) {
    pending = null;
    if (batch.length === 1) {
      const [w] = batch;
      return void one(w.item).then(w.resolve, w.reject);
    }
    many(batch.map((w) => w.item)).then(
      (results) => batch.forEach((w, i) => w.resolve(results[i])),
      () => {
        for (const w of batch) one(w.item).then(w.resolve, w.reject);
      },
    );
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (!pending) {
        const batch: Array<Waiter<I, R>> = [];
        pending = batch;
        setImmediate(() => flush(batch));
      }
      pending.push({ item, resolve, reject });
    });
}
