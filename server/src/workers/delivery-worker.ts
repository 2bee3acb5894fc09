/**
 * A worker that delivers what a service queued in the database (merchant callbacks, the sandbox's
 * notifications): each poll, and at once when the service queued something in this process.
 */
import type { Logger } from 'pino';
import { startLoop, type Loop } from './loop';

export interface DeliverySource {
  /** Sends what is due; true when more is waiting. */
  deliverDue(): Promise<boolean>;
  /** Tells the source how to wake the worker after it queued something. */
  setWake(wake: () => void): void;
  /** Waits for deliveries in flight. */
  stop(): Promise<void>;
}

export function startDeliveryWorker(name: string, source: DeliverySource, pollMs: number, log: Logger): Loop {
  const loop = startLoop(name, pollMs, () => source.deliverDue(), log);
  source.setWake(() => loop.poke());
  return {
    poke: () => loop.poke(),
    async stop() {
      source.setWake(() => undefined);
      await loop.stop();
      await source.stop();
    },
  };
}
