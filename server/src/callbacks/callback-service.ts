/**
 * Payment-result callbacks (specification section 6): what the rest of the service sees of them.
 * `enqueue` writes the callback as a job inside the transaction of the state change, so a crash
 * can neither lose it nor send one for a change that did not commit (outbox); `callback-delivery.ts`
 * sends it. One callback per state change: the job key is `<prepayId>:<status>`.
 */
import type { CallbackStatus, PaymentChannel } from '@kit/shared';
import type { Executor } from '../db/schema';
import type { Guard } from '../db/write-chain';
import type { Jobs } from '../jobs/jobs';
import { CALLBACK_QUEUE, type CallbackStore } from './callback-store';

export interface CallbackEventInput {
  prepayId: string;
  status: CallbackStatus;
  subMerchantId: string;
  merchantId: string;
  /** The app that owns the sub-merchant: its secret signs the callback. */
  ownerAppId: string;
  /** The channel that took the payment: its `notifyCallbackUrl` is the target. */
  channel: PaymentChannel;
}

/** How a callback ended up: still being tried, delivered, given up after the last retry, or without a URL. */
export type CallbackState = 'pending' | 'delivered' | 'failed' | 'undeliverable';

export class CallbackService {
  constructor(
    private readonly jobs: Jobs,
    private readonly store: CallbackStore,
  ) {}

  /** Writes the callback on the caller's transaction; call `committed()` after the commit. False when it already exists. */
  enqueue(on: Executor, e: CallbackEventInput): Promise<boolean> {
    return this.jobs.enqueue(on, { queue: CALLBACK_QUEUE, key: `${e.prepayId}:${e.status}`, ref: e.prepayId, payload: e });
  }

  /** `enqueue` of an order's change as a step of a chain of writes (`db/write-chain.ts`): the order's merchants read by the statement. */
  enqueueOfOrderQuery(guard: Guard, prepayId: string, status: CallbackStatus, channel: PaymentChannel, now: number) {
    return this.store.enqueueOfOrderQuery(guard, prepayId, status, channel, now);
  }

  /** Starts delivery at once instead of at the next poll. */
  committed(): void {
    this.jobs.wake(CALLBACK_QUEUE);
  }

  /** The callbacks of an order with every attempt (operators and tests). */
  async history(prepayId: string) {
    const rows = await this.jobs.history(CALLBACK_QUEUE, prepayId);
    return Promise.all(
      rows.map(async (r) => ({
        id: r.id,
        status: (JSON.parse(r.payload) as CallbackEventInput).status,
        state: (r.state === 'pending' ? 'pending' : r.result) as CallbackState,
        attempts: r.attempts,
        lastError: r.last_error,
        createdAt: r.created_at,
        doneAt: r.done_at,
        attemptLog: await this.store.attempts(r.id),
      })),
    );
  }
}
