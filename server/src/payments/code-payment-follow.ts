/**
 * The follow-up of a payment code scanned at the counter (7.4), run by the payment follower for its
 * channel order (queue `payment.reconcile`, payload `CodeWatch`). It always ends one of two ways:
 * paid (the platform says so: recorded as any payment, with its callback), or cancelled at the
 * platform. While the payer confirms on the phone it asks every few seconds until `CODE_PAY_WAIT`
 * has passed; a code whose outcome is unknown (no answer, a crash between the call and its answer,
 * a platform that cannot be asked) is cancelled unless the platform says it was paid; a cancel the
 * platform asks for again is asked again. A restart resumes it: it is a job row like any other.
 */
import type { Clock } from '@kit/shared/clock';
import { isKitError } from '@kit/shared';
import type { Logger } from 'pino';
import type { PayChannelOrdersTable } from '../db/schema';
import type { JobSettlement } from '../jobs/job-store';
import type { Retry } from '../jobs/retry';
import type { PrepayService } from '../orders/prepay-service';
import type { ChannelOrders, CodeWatch } from './channel-orders';
import { CANCEL_AGAIN_AFTER_MS, type CodeCancel } from './code-cancel';
import { CODE_QUERY_EVERY_MS } from './code-payments';
import type { Providers } from './providers/in-use';
import type { PaymentFacts } from './providers/provider';

export class CodePaymentFollow {
  constructor(
    private readonly prepay: PrepayService,
    private readonly providers: Providers,
    private readonly channelOrders: ChannelOrders,
    private readonly cancels: CodeCancel,
    private readonly opts: { channelTimeoutMs: number },
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  async follow(co: PayChannelOrdersTable, watch: CodeWatch | undefined, retry: Retry): Promise<JobSettlement> {
    if (co.state === 'paid' || co.state === 'failed' || co.state === 'closed') return { state: 'done', result: co.state };
    if (co.state === 'cancelled') return this.cancelAtPlatform(co, retry);
    const now = this.clock.now();
    // The request charging it may still get the platform's answer.
    if (co.state === 'creating' && now - co.updated_at < this.opts.channelTimeoutMs)
      return { state: 'pending', nextAt: co.updated_at + this.opts.channelTimeoutMs + 1_000 };
    let q: PaymentFacts | undefined;
    let error: string | null = null;
    try {
      const answer = await this.providers.get(co.channel).queryOrder(co);
      if (answer.ok) q = answer;
      else error = `${answer.refusal.code} ${answer.refusal.message}`.trim();
    } catch (e) {
      if (!isKitError(e)) throw e;
      error = e.message;
    }
    if (q && (q.state === 'paid' || q.state === 'refunded')) {
      await this.channelOrders.recordQueriedPayment(co, q);
      this.log.info({ prepayId: co.prepay_id, outTradeNo: co.out_trade_no }, 'payment code: paid, the order query says');
      return { state: 'done', result: 'paid' };
    }
    const order = await this.prepay.find(co.prepay_id);
    const until = watch?.confirmUntil ?? co.created_at;
    // The payer is still confirming (the platform says so, or cannot be asked just now), in time, for an order still payable.
    const confirming = co.state === 'open' && (!q || q.state === 'paying' || q.state === 'unpaid');
    if (confirming && order?.status === 'active' && now < until) return { state: 'pending', nextAt: Math.min(now + CODE_QUERY_EVERY_MS, until), error };
    // Not confirmed in time, an outcome nobody knows, or the order ended: cancel it (money taken meanwhile goes back).
    const decided = await this.cancels.decide(co);
    if (decided === 'paid') return { state: 'done', result: 'paid' };
    if (decided === 'ended') return { state: 'done', result: 'ended' };
    this.log.info({ prepayId: co.prepay_id, outTradeNo: co.out_trade_no, state: q?.stateText ?? error }, 'payment code: cancelling it at the platform');
    return this.cancelAtPlatform(co, retry);
  }

  private async cancelAtPlatform(co: PayChannelOrdersTable, retry: Retry): Promise<JobSettlement> {
    const said = await this.cancels.atPlatform(co);
    if (said.done) return { state: 'done', result: 'cancelled' };
    if (said.again) return { state: 'pending', nextAt: this.clock.now() + CANCEL_AGAIN_AFTER_MS, error: said.why };
    return retry.unreachable(said.why);
  }
}
