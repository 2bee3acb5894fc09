/**
 * Carries order events between instances sharing one PostgreSQL database with LISTEN/NOTIFY, so a
 * payment processed by one instance wakes detail calls held by another.
 */
import type pg from 'pg';
import type { OrderEvents, OrderEvent } from './order-events';

export class PgOrderEventBridge {
  private client?: pg.PoolClient;
  private stopped = false;
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
    this.client = client;
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || !msg.payload) return;
      const [origin, prepayId, status] = msg.payload.split(' ');
      if (origin !== this.instance && prepayId) this.events.deliver({ prepayId, status });
    });
    client.on('error', (err) => {
      this.log.warn({ err: err.message }, 'order event listener lost its connection; reconnecting');
      client.release(true);
      if (!this.stopped) setTimeout(() => void this.listen().catch(() => undefined), 500);
    });
    await client.query(`LISTEN "${this.channel}"`);
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
