/**
 * The service's PostgreSQL pool: node-postgres's, with what a network partition between the
 * service and its database needs (docs/operations.md, "A network partition"). A partition drops
 * packets without closing anything: a statement sent into it gets no answer and no error, and after
 * the heal its connection comes back only when TCP's retransmission backoff next tries, tens of
 * seconds later.
 *
 * - One timer per use: the wait for a connection and the statement run on it share one bound
 *   (DATABASE_STATEMENT_TIMEOUT), and each further statement on that connection has the bound to
 *   itself. node-postgres bounds the wait and the statement with a timer each, which held a call up
 *   to twice as long against a dead link.
 * - A connection whose statement runs out of time is closed there and then, never given back to the
 *   pool: the next statement on it would wait behind the unanswered one.
 * - Then, and when a connection cannot be opened, the pool checks with a connection of its own
 *   whether the database answers. If it does not, the database is away, and the pool asks again
 *   every PROBE_EVERY_MS. The first answer brings it back: each connection still waiting on a
 *   statement, and each connection attempt, begun before that answer is closed (its call answers
 *   503 now instead of when its bound runs out, and its place in the pool is free for calls that
 *   succeed), and `onBack` listeners hear it (the LISTEN bridge listens again).
 */
import pg from 'pg';
import { isDatabaseUnavailable } from './errors';

/** While the database is away, how often a connection of the pool's own asks whether it answers again. */
const PROBE_EVERY_MS = 500;
/** The longest one such question may take (DATABASE_STATEMENT_TIMEOUT when shorter). */
const PROBE_MS = 2_000;

/** The database did not answer within the bound. Its code is a network failure's: 503 `unavailable` (`errors.ts`). */
export class NoAnswerError extends Error {
  readonly code = 'ETIMEDOUT';
}

/** A statement sent and not yet answered. */
interface Waiting {
  sentAt: number;
  fail(err: Error): void;
}

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;
type Query = (...args: unknown[]) => Promise<unknown>;

export class BoundedPool extends pg.Pool {
  private readonly boundMs: number | undefined;
  /** Connection attempts under way, with when each began. */
  private readonly opening: Map<pg.Client, number>;
  /** The deadline of a connection's first statement: the wait for it counts against its bound. */
  private readonly firstDeadline = new WeakMap<pg.PoolClient, number>();
  private readonly wrapped = new WeakSet<pg.PoolClient>();
  private readonly closed = new WeakSet<pg.PoolClient>();
  private readonly waiting = new Map<pg.PoolClient, Set<Waiting>>();
  /** `checking`: something ran out of time, one question is out; `away`: it went unanswered. */
  private reach: 'up' | 'checking' | 'away' = 'up';
  private probeTimer?: NodeJS.Timeout;
  private readonly probes = new Set<pg.Client>();
  private readonly backListeners = new Set<() => void>();

  /** `boundMs` unset: node-postgres as it is (the migrations' pool, which has no bound). */
  constructor(config: pg.PoolConfig, boundMs?: number) {
    const opening = new Map<pg.Client, number>();
    // The pool's clients say when they start connecting and when that is over, so that attempts
    // begun into a partition can be given up once the database answers again.
    class OpeningClient extends pg.Client {
      constructor(c?: pg.ClientConfig) {
        super(c);
        opening.set(this, Date.now());
        const over = () => opening.delete(this);
        this.once('connect', over);
        this.once('end', over);
      }
    }
    super({ ...config, Client: OpeningClient as unknown as new () => pg.ClientBase });
    this.boundMs = boundMs;
    this.opening = opening;
    // An idle connection failing (keepalive found its peer gone, the server ended it) is a sign too.
    this.on('error', () => this.suspect());
  }

  /** Whether the database is away: a connection of the pool's own got no answer (the tests wait for it). */
  get away(): boolean {
    return this.reach === 'away';
  }

  /** Calls `listener` each time the database answers again after being away; returns the unsubscribe. */
  onBack(listener: () => void): () => void {
    this.backListeners.add(listener);
    return () => this.backListeners.delete(listener);
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const acquired = this.acquire();
    if (!callback) return acquired;
    acquired.then(
      (client) => callback(undefined, client, (release) => client.release(release as Error | boolean | undefined)),
      (err: Error) => callback(err, undefined, () => undefined),
    );
  }

  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(callback?: () => void): Promise<void> | void {
    clearInterval(this.probeTimer);
    this.reach = 'up';
    for (const probe of this.probes) probe.connection.stream.destroy();
    return callback ? super.end(callback) : super.end();
  }

  private acquire(): Promise<pg.PoolClient> {
    const bound = this.boundMs;
    if (bound === undefined) return super.connect();
    const deadline = Date.now() + bound;
    return new Promise((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new NoAnswerError(`no database connection within ${bound} ms`));
      }, bound);
      super.connect().then(
        (client) => {
          if (late) return client.release();
          clearTimeout(timer);
          this.bound(client);
          this.firstDeadline.set(client, deadline);
          resolve(client);
        },
        (err: Error) => {
          if (!(err instanceof pg.DatabaseError)) this.suspect();
          if (late) return;
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  /** Every statement on `client` goes through `run`, outermost (after the pool's other wrappers: connect.ts). */
  private bound(client: pg.PoolClient): void {
    if (this.wrapped.has(client)) return;
    this.wrapped.add(client);
    const query = client.query.bind(client) as Query;
    client.query = ((...args: unknown[]) => {
      const last = args[args.length - 1];
      const callback = typeof last === 'function' ? (args.pop() as (err: Error | null, res?: unknown) => void) : undefined;
      // A submittable (a cursor, a stream) runs as given; the kit sends none.
      if (typeof (args[0] as { submit?: unknown } | null)?.submit === 'function') return query(...args, ...(callback ? [callback] : []));
      const answer = this.run(client, () => query(...args));
      if (!callback) return answer;
      answer.then(
        (res) => callback(null, res),
        (err: Error) => callback(err),
      );
      return undefined;
    }) as typeof client.query;
  }

  private run(client: pg.PoolClient, send: () => Promise<unknown>): Promise<unknown> {
    const sentAt = Date.now();
    const deadline = this.firstDeadline.get(client) ?? sentAt + this.boundMs!;
    this.firstDeadline.delete(client);
    const ms = deadline - sentAt;
    if (this.closed.has(client)) return Promise.reject(new NoAnswerError('the database did not answer on this connection, which is closed'));
    if (ms <= 0) return Promise.reject(new NoAnswerError(`no database connection within ${this.boundMs} ms`));
    let mine = this.waiting.get(client);
    if (!mine) this.waiting.set(client, (mine = new Set()));
    const waiting = mine;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (then: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        waiting.delete(entry);
        if (!waiting.size && this.waiting.get(client) === waiting) this.waiting.delete(client);
        then();
      };
      const entry: Waiting = { sentAt, fail: (err) => settle(() => reject(err)) };
      waiting.add(entry);
      const timer = setTimeout(() => {
        this.close(client, new NoAnswerError(`no answer from the database within ${ms} ms`));
        this.suspect();
      }, ms);
      send().then(
        (res) =>
          settle(() => {
            this.answered(sentAt);
            resolve(res);
          }),
        (err: Error) =>
          settle(() => {
            // An error the server sent came over a working link; a broken connection is a sign of trouble.
            if (err instanceof pg.DatabaseError) this.answered(sentAt);
            else if (isDatabaseUnavailable(err)) this.suspect();
            reject(err);
          }),
      );
    });
  }

  /**
   * Fails what waits on `client` and closes it. `end` marks it ending, so the pool drops it when it
   * is released (pg-pool's `_release`), and destroys the socket under a statement in flight.
   */
  private close(client: pg.PoolClient, err: Error): void {
    if (this.closed.has(client)) return;
    this.closed.add(client);
    for (const w of [...(this.waiting.get(client) ?? [])]) w.fail(err);
    this.waiting.delete(client);
    client.end().catch(() => undefined);
  }

  /** Something ran out of time or broke: ask the database, on a connection of our own, whether it answers. */
  private suspect(): void {
    if (this.reach !== 'up' || this.ending || this.boundMs === undefined) return;
    this.reach = 'checking';
    this.probe();
  }

  private probe(): void {
    const sentAt = Date.now();
    const client = new pg.Client(this.options);
    this.probes.add(client);
    client.on('error', () => undefined);
    const timer = setTimeout(() => client.connection.stream.destroy(), Math.min(this.boundMs!, PROBE_MS));
    const over = () => {
      clearTimeout(timer);
      this.probes.delete(client);
    };
    client
      .connect()
      .then(() => client.query('select 1'))
      .then(
        () => {
          over();
          client.end().catch(() => undefined);
          this.answered(sentAt);
        },
        () => {
          over();
          client.connection.stream.destroy();
          if (this.reach !== 'checking') return;
          this.reach = 'away';
          this.probeTimer = setInterval(() => this.probe(), PROBE_EVERY_MS).unref();
        },
      );
  }

  /** The database answered what was sent at `sentAt`. */
  private answered(sentAt: number): void {
    if (this.reach === 'up') return;
    const wasAway = this.reach === 'away';
    this.reach = 'up';
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
    if (!wasAway) return;
    // Back. What still waits since before this answer waits on a link the partition left silent.
    const cut = new NoAnswerError('no answer from the database, which was away');
    for (const [client, waiting] of [...this.waiting]) if ([...waiting].some((w) => w.sentAt < sentAt)) this.close(client, cut);
    for (const [client, began] of this.opening) if (began < sentAt) client.connection.stream.destroy();
    for (const listener of this.backListeners) listener();
  }
}
