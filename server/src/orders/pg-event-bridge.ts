/**
 * Carries order events between instances sharing one PostgreSQL database with LISTEN/NOTIFY, so a
 * payment processed by one instance wakes detail calls held by another.
 *
 * The events of one event-loop turn go out in one NOTIFY: at a payment rush a NOTIFY per payment
 * was one more round trip per notification (docs/performance.md). The payload is
 * `<instance> <prepayId> <status> [<prepayId> <status> …]`, space-separated, so an instance of the
 * previous version (one event per NOTIFY) still reads the first event of each during a rolling upgrade.
 */
import type pg from 'pg';
import { sql } from 'kysely';
import type { Guard } from '../db/write-chain';
import type { OrderEvents, OrderEvent } from './order-events';

export class PgOrderEventBridge {
  private client?: pg.PoolClient;
  /** Releases `client` (once, however often it is called). */
  private dropClient?: () => void;
  private stopped = false;
  private reconnecting = false;
  private detachRelay?: () => void;
  private readonly channel: string;
  private readonly instance = Math.random().toString(36).slice(2, 10);
  /** Events of this turn not yet sent (`<prepayId> <status>` each). */
  private readonly pending: string[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly events: OrderEvents,
    schema: string,
    private readonly log: { warn: (o: object, m: string) => void },
  ) {
    this.channel = `kit_orders_${schema}`;
  }

  async start(): Promise<void> {
    await this.listen();
    this.detachRelay = this.events.addRelay((e) => this.notify(e));
    // A payment's settlement sends its NOTIFY in its own statement (`notifyQuery`).
    this.events.notifyVia = { channel: this.channel, origin: this.instance };
  }

  private async listen(): Promise<void> {
    const client = await this.pool.connect();
    if (this.stopped) return client.release();
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
      }
      client.release(true);
    };
    this.dropClient = drop;
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || !msg.payload) return;
      const [origin, ...events] = msg.payload.split(' ');
      if (origin === this.instance) return;
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
  }

  /** Listens again once the database lets it, however long it is away (one attempt at a time). */
  private reconnectSoon(): void {
    if (this.stopped || this.reconnecting) return;
    this.reconnecting = true;
    setTimeout(() => {
      this.reconnecting = false;
      if (this.stopped || this.client) return;
      this.listen().catch(() => this.reconnectSoon());
    }, 500).unref();
  }

  private notify(e: OrderEvent): void {
    if (this.pending.push(`${e.prepayId} ${e.status}`) === 1) setImmediate(() => this.flush());
  }

  /** Sends this turn's events, as few NOTIFYs as PostgreSQL's payload limit allows. */
  private flush(): void {
    for (const payload of payloads(this.instance, this.pending.splice(0))) {
      this.pool.query('select pg_notify($1, $2)', [this.channel, payload]).catch((err) => this.log.warn({ err: err.message }, 'order event notify failed'));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.detachRelay?.();
    this.events.notifyVia = undefined;
    // Its session ends, and with it the LISTEN.
    this.dropClient?.();
  }
}

/**
 * The NOTIFY of one event as a step of a change's own statement (`db/write-chain.ts`): sent when the
 * statement commits, in the payload format above, from `origin` (`OrderEvents.notifyVia`).
 */
export function notifyQuery(guard: Guard, channel: string, origin: string, prepayId: string, status: string) {
  const text = (v: string) => sql`cast(${v} as text)`;
  const payload = sql`${text(origin)} || ' ' || ${text(prepayId)} || ' ' || ${text(status)}`;
  return guard === undefined ? sql`select pg_notify(${text(channel)}, ${payload})` : sql`select pg_notify(${text(channel)}, ${payload}) where ${guard}`;
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
