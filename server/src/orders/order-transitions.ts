/**
 * The one state-transition primitive of prepay orders, and the announcement of a committed change.
 * Kept apart from `PrepayService` because the payments settle orders through it while the
 * service's expiry goes through the payments first (`ExpiryGuard`): both are then built in order,
 * from their dependencies, without attaching one to the other afterwards.
 */
import type { Executor } from '../db/schema';
import type { Guard } from '../db/write-chain';
import type { OrderEvents } from './order-events';
import type { OrderStatus, PrepayStore } from './prepay-store';

export class OrderTransitions {
  constructor(
    private readonly store: PrepayStore,
    private readonly events: OrderEvents,
  ) {}

  /**
   * The one way an order changes state. Runs on the caller's transaction (so an outbox row can
   * commit with it); the caller publishes with `announce` after its transaction commits.
   */
  transition(on: Executor, prepayId: string, from: OrderStatus, to: OrderStatus, patch: { payment_time?: number } = {}): Promise<boolean> {
    return this.store.transition(on, prepayId, from, to, patch);
  }

  /** `transition` as a step of a chain of writes (`db/write-chain.ts`): from any of `from`. */
  transitionQuery(guard: Guard, prepayId: string, from: readonly OrderStatus[], to: OrderStatus, now: number, patch: { payment_time?: number } = {}) {
    return this.store.transitionQuery(guard, prepayId, from, to, now, patch);
  }

  /** Wakes held detail calls (here and on other instances) after a committed change. */
  announce(prepayId: string, status: OrderStatus): void {
    this.events.publish({ prepayId, status });
  }
}
