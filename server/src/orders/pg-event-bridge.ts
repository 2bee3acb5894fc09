/**
 * Carries order events between instances sharing one PostgreSQL database with LISTEN/NOTIFY, so a
 * payment processed by one instance wakes detail calls held by another.
 */
import type pg from 'pg';
import type { OrderEvents, OrderEvent } from './order-events';

export class PgOrderEventBridge {
  private client?: pg.PoolClient;
  private stopped = false;
  private reconnecting = false;
  private detachRelay?: () => void;
  private readonly channel: string;
  private readonly instance = Math.random().toString(36).slice(2, 10);

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
  }

  private async listen(): Promise<void> {
    const client = await this.pool.connect();
    if (this.stopped) return client.release();
    this.client = client;
    let dropped = false;
    // Released once, here: `stop` must not release it again (pg throws on a double release).
    const drop = () => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) this.client = undefined;
      client.release(true);
    };
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || !msg.payload) return;
      const [origin, prepayId, status] = msg.payload.split(' ');
      if (origin !== this.instance && prepayId) this.events.deliver({ prepayId, status });
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
    this.pool
      .query('select pg_notify($1, $2)', [this.channel, `${this.instance} ${e.prepayId} ${e.status}`])
      .catch((err) => this.log.warn({ err: err.message }, 'order event notify failed'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.detachRelay?.();
    if (this.client) {
      await this.client.query(`UNLISTEN "${this.channel}"`).catch(() => undefined);
      this.client.release();
    }
  }
}
