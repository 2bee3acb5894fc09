/**
 * Cancelling a payment code (7.4): first the kit's decision, one conditional write (the channel
 * order `cancelled`, so that from then on no payment of it counts, a late "paid" answer or
 * notification included), then the platform's cancel, which gives back money the payer paid in the
 * same moment; asked again by the code's follow-up until the platform confirms it.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { isKitError } from '@kit/shared';
import type { PayChannelOrdersTable } from '../db/schema';
import type { Jobs } from '../jobs/jobs';
import type { PaymentStore } from './payment-store';
import type { Providers } from './providers/in-use';
import { refusalText } from './providers/provider';

/** What the platform said to a cancel: done (or nothing there to cancel), asked for again, or a refusal in words. */
export type PlatformCancel = { done: true } | { done: false; again: boolean; why: string };

/** Before the cancel is asked again, when the platform asks for it (`retry_flag: "Y"`, `recall: "Y"`). */
export const CANCEL_AGAIN_AFTER_MS = 1_000;

export class CodeCancel {
  constructor(
    private readonly store: PaymentStore,
    private readonly providers: Providers,
    private readonly jobs: Jobs,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * Decides the cancel of a code still being charged or confirmed: `cancelled` (the kit's decision is
   * written), `paid` (recorded meanwhile: nothing to cancel), or `ended` (refused or cancelled already).
   */
  async decide(co: PayChannelOrdersTable): Promise<'cancelled' | 'paid' | 'ended'> {
    if (await this.store.moveChannelOrder(this.store.db, co.out_trade_no, ['creating', 'open'], 'cancelled')) return 'cancelled';
    const now = await this.store.channelOrder(co.out_trade_no);
    return now?.state === 'paid' ? 'paid' : now?.state === 'cancelled' ? 'cancelled' : 'ended';
  }

  /** Asks the platform to cancel a code the kit decided to cancel. Throws `channel_unavailable` when it cannot be reached. */
  async atPlatform(co: PayChannelOrdersTable): Promise<PlatformCancel> {
    const answer = await this.providers.get(co.channel).codePayment!.cancel(co);
    if (answer.ok && !answer.again) {
      this.log.info({ prepayId: co.prepay_id, outTradeNo: co.out_trade_no }, 'payment code cancelled at the platform');
      return { done: true };
    }
    if (answer.ok) return { done: false, again: true, why: 'the platform asks for the cancel again' };
    // Nothing there: the platform never took the code.
    if (answer.refusal.meaning === 'not_found') return { done: true };
    return { done: false, again: false, why: refusalText(answer.refusal, ': ') };
  }

  /**
   * Cancels now, from a request whose call got no outcome: decided, then asked once. When the
   * platform does not confirm, the follow-up asks again at once and on its schedule.
   */
  async now(co: PayChannelOrdersTable): Promise<'cancelled' | 'cancelling' | 'paid'> {
    const decided = await this.decide(co);
    if (decided === 'paid') return 'paid';
    if (decided === 'ended') return 'cancelled';
    let said: PlatformCancel;
    try {
      said = await this.atPlatform(co);
    } catch (e) {
      if (!isKitError(e)) throw e;
      said = { done: false, again: true, why: e.message };
    }
    if (said.done) {
      await this.jobs.finish(this.store.db, 'payment.reconcile', co.out_trade_no, 'cancelled');
      return 'cancelled';
    }
    const at = this.clock.now() + CANCEL_AGAIN_AFTER_MS;
    await this.jobs.enqueue(this.store.db, { queue: 'payment.reconcile', key: co.out_trade_no, ref: co.prepay_id, at }, 'rearm');
    this.jobs.wake('payment.reconcile');
    return 'cancelling';
  }
}
