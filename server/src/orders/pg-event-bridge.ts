/**
 * Carries order events between instances sharing one PostgreSQL database with LISTEN/NOTIFY, so a
 * payment processed by one instance wakes detail calls held by another.
 *
 * The NOTIFY goes out after the change has committed, in a transaction of its own that does not wait
 * for the disk. PostgreSQL serializes the commits of all transactions that notify, database-wide,
 * behind a lock held until the commit is flushed: a NOTIFY inside the payment's own statement made
 * every payment of every instance commit one after another (docs/performance.md). Only the wake-up
 * can be lost to a database crash, and a call whose wake-up is lost answers at the end of its hold;
 * its client then calls again (4.2).
 *
 * An instance that hears no other sends no events at all. Each one says hello when it starts
 * listening and then every INSTANCE_HELLO_INTERVAL, and answers at once a hello from an instance it
 * had not heard. It counts another one as there for three intervals after its last message. For its
 * first second of listening, before the answers to its own hello can have arrived, an instance sends
 * its events whatever it has heard.
 *
 * A partition between an instance and the database leaves its LISTEN session open and silent: what
 * the server sent meanwhile comes only when TCP's retransmission backoff next tries, tens of seconds
 * after the link heals. So when the pool finds the database answering again after it was away, the
 * instance listens on a new session at once and says hello (`BoundedPool.onBack`).
 *
 * The events of one event-loop turn go out in one NOTIFY. The payload is
 * `<instance> <prepayId> <status> [<prepayId> <status> …]`, space-separated; a hello is `<instance>`
 * alone. An instance of the previous version (one event per NOTIFY, no hellos) reads the first event of
 * each and takes a hello for nothing; it is heard by the events it sends.
 */
import type pg from 'pg';
import type { BoundedPool } from '../db/bounded-pool';
import type { OrderEvents, OrderEvent } from './order-events';

/** `set_config(…, true)` lasts to the end of the statement's own transaction, whose commit it governs. */
const NOTIFY = "select set_config('synchronous_commit', 'off', true), pg_notify($1, $2)";

/** How long, after it starts listening, an instance waits for the answers to its hello. */
const ANSWERS_WITHIN_MS = 1_000;

export class PgOrderEventBridge {
  private client?: pg.PoolClient;
  /** Releases `client` (once, however often it is called). */
  private dropClient?: () => void;
  private stopped = false;
  private reconnecting = false;
  /** Counts the sessions asked for: one asked for later takes over from one still connecting. */
  private attempts = 0;
  private detachRelay?: () => void;
  private detachBack?: () => void;
  private readonly channel: string;
  private readonly instance = Math.random().toString(36).slice(2, 10);
  /** Events of this turn not yet sent (`<prepayId> <status>` each). */
  private readonly pending: string[] = [];
  /** The other instances heard, by id: when each was last heard (ms). */
  private readonly others = new Map<string, number>();
  /** Until then this instance sends its events whatever it has heard (Infinity: not listening). */
  private unsureUntil = Infinity;
  private helloTimer?: NodeJS.Timeout;
  private answering = false;

  constructor(
    private readonly pool: BoundedPool,
    private readonly events: OrderEvents,
    schema: string,
    private readonly log: { warn: (o: object, m: string) => void },
    /** INSTANCE_HELLO_INTERVAL. */
    private readonly helloEveryMs = 10_000,
  ) {
    this.channel = `kit_orders_${schema}`;
  }

  async start(): Promise<void> {
    await this.listen();
    this.detachRelay = this.events.addRelay((e) => this.notify(e));
    this.helloTimer = setInterval(() => this.hello(), this.helloEveryMs).unref();
    this.detachBack = this.pool.onBack(() => this.listenAgain());
  }

  /** The other instances heard within three hello intervals. */
  get othersHeard(): number {
    const since = Date.now() - 3 * this.helloEveryMs;
    let n = 0;
    for (const [id, at] of this.others) {
      if (at >= since) n++;
      else this.others.delete(id);
    }
    return n;
  }

  /** Whether this instance's events go out: another instance may be listening. */
  get sending(): boolean {
    return Date.now() < this.unsureUntil || this.othersHeard > 0;
  }

  private async listen(): Promise<void> {
    const attempt = ++this.attempts;
    const client = await this.pool.connect();
    if (this.stopped || attempt !== this.attempts) return client.release();
    this.client = client;
    let dropped = false;
    // Released once, here, by whichever comes first: its connection failing, or `stop`. pg throws
    // on a second release, from the 'error' event, which would end the process: a connection
    // terminated just after `stop` (the database being fenced while the service stops) did so.
    const drop = () => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) {
        this.client = undefined;
        this.dropClient = undefined;
        // Deaf now: whoever speaks meanwhile is not heard, so send as if they were there.
        this.unsureUntil = Infinity;
      }
      client.release(true);
    };
    this.dropClient = drop;
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || !msg.payload) return;
      const [origin, ...events] = msg.payload.split(' ');
      if (origin === this.instance) return;
      this.heard(origin);
      for (let i = 0; i + 1 < events.length; i += 2) this.events.deliver({ prepayId: events[i], status: events[i + 1] });
    });
    client.on('error', (err) => {
      if (dropped) return;
      this.log.warn({ err: err.message }, 'order event listener lost its connection; reconnecting');
      drop();
      this.reconnectSoon();
    });
    try {
      await client.query(`LISTEN "${this.channel}"`);
    } catch (e) {
      drop();
      throw e;
    }
    if (attempt !== this.attempts) return drop();
    this.unsureUntil = Date.now() + ANSWERS_WITHIN_MS;
    await this.send(this.instance);
  }

  /** Another instance spoke: it is there; one not heard before is answered, so that it knows of this one. */
  private heard(origin: string): void {
    const known = this.others.has(origin);
    this.others.set(origin, Date.now());
    if (known || this.answering) return;
    this.answering = true;
    setImmediate(() => {
      this.answering = false;
      this.hello();
    });
  }

  /** The database answers again after it was away: the session listening may be one the partition left silent. */
  private listenAgain(): void {
    if (this.stopped) return;
    this.dropClient?.();
    this.listen().catch(() => this.reconnectSoon());
  }

  /** Reconnects, once the database lets it, however long it is away (one attempt at a time). */
  private reconnectSoon(): void {
    if (this.stopped || this.reconnecting) return;
    this.reconnecting = true;
    setTimeout(() => {
      this.reconnecting = false;
      if (this.stopped || this.client) return;
      this.listen().catch(() => this.reconnectSoon());
    }, 500).unref();
  }

  private hello(): void {
    if (this.client) void this.send(this.instance);
  }

  private notify(e: OrderEvent): void {
    if (!this.sending) return;
    if (this.pending.push(`${e.prepayId} ${e.status}`) === 1) setImmediate(() => this.flush());
  }

  /** Sends this turn's events, as few NOTIFYs as PostgreSQL's payload limit allows. */
  private flush(): void {
    for (const payload of payloads(this.instance, this.pending.splice(0))) void this.send(payload);
  }

  /** One NOTIFY in a transaction of its own that commits without waiting for the disk (see above); parsed once per connection. */
  private send(payload: string): Promise<void> {
    return this.pool.query({ name: 'kit_order_notify', text: NOTIFY, values: [this.channel, payload] }).then(
      () => undefined,
      (err: Error) => this.log.warn({ err: err.message }, 'order event notify failed'),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.helloTimer);
    this.detachRelay?.();
    this.detachBack?.();
    // Its session ends, and with it the LISTEN.
    this.dropClient?.();
  }
}

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more. */
const PAYLOAD_BYTES = 7_900;

/** The events behind the sender's id, split so that no payload passes the limit. */
export function payloads(instance: string, events: readonly string[]): string[] {
  const out: string[] = [];
  let current = instance;
  for (const e of events) {
    if (current.length > instance.length && Buffer.byteLength(current) + 1 + Buffer.byteLength(e) > PAYLOAD_BYTES) {
      out.push(current);
      current = instance;
    }
    current += ` ${e}`;
  }
  if (current.length > instance.length) out.push(current);
  return out;
}
