/**
 * The handler of queue `payment.duplicate` (docs/payments.md "Paid once"): refunds a second payment
 * of an order through the provider of the channel order that took it, and follows the refund until
 * its channel says it is done. The refund number is the one recorded with the duplicate, so a run
 * cut short (a crash, a lost answer) sends the same refund again, which the channel treats as the
 * same refund. Its notification, when it comes first, completes it the same way (`DuplicatePayments`).
 */
import type { Logger } from 'pino';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { FollowUpRules } from '../jobs/follow-up';
import type { Retry } from '../jobs/retry';
import type { ReconciliationOutcome } from '../metrics/metrics';
import { asRefund, DUPLICATE_QUEUE, type DuplicatePayments } from './duplicate-payments';
import type { PaymentStore } from './payment-store';
import type { Providers } from './providers/in-use';
import { refusalText } from './providers/provider';

export class DuplicateRefundFollower implements FollowUpRules {
  readonly queue = DUPLICATE_QUEUE;
  /** The refund (sent again while not accepted), then its query. */
  readonly channelCalls = 2;
  readonly metricKind = 'duplicate_refund' as const;

  constructor(
    private readonly duplicates: DuplicatePayments,
    private readonly payments: PaymentStore,
    private readonly providers: Providers,
    private readonly log: Logger,
  ) {}

  outcome(settled: JobSettlement): ReconciliationOutcome {
    if (settled.state === 'done') return settled.result === 'refunded' || settled.result === 'success' ? 'refunded' : 'failed';
    return settled.error ? 'failed' : 'pending';
  }

  async follow(job: JobRow, retry: Retry): Promise<JobSettlement> {
    const store = this.duplicates.store;
    let d = await store.byChannelOrder(job.key!);
    if (!d || d.state === 'success' || d.state === 'failed') return { state: 'done', result: d?.state ?? 'gone' };
    const co = await this.payments.channelOrder(d.out_trade_no);
    if (!co) return { state: 'failed', result: 'no channel order', error: `duplicate ${d.out_trade_no} names an unknown channel order` };
    const provider = this.providers.get(co.channel);
    if (d.state === 'requesting') {
      // A channel that cannot be reached throws: the frame asks again later, with the same refund number.
      let sent;
      try {
        sent = await provider.refund(asRefund(d), co);
      } catch (e) {
        await store.noteError(d.out_trade_no, (e as Error).message);
        throw e;
      }
      if (!sent.ok) {
        const why = refusalText(sent.refusal, ': ');
        if (provider.isRetryable(sent.refusal)) {
          await store.noteError(d.out_trade_no, why);
          return retry.later(why);
        }
        await this.duplicates.fail(asRefund(d), `refused: ${why}`);
        return { state: 'done', result: 'refused' };
      }
      await store.move(store.db, d.out_trade_no, ['requesting'], 'accepted', { refund_id: sent.refundId, last_error: null });
      this.log.info({ prepayId: d.prepay_id, outTradeNo: d.out_trade_no, outRefundNo: d.out_refund_no }, 'refund of a second payment accepted by its channel');
      d = (await store.byChannelOrder(d.out_trade_no))!;
      if (d.state !== 'accepted') return { state: 'done', result: d.state };
    }
    const q = await provider.queryRefund(asRefund(d), co);
    if (!q.ok) {
      // The channel does not know it: it never got it; send it again (same number) on the next run.
      if (q.refusal.meaning === 'not_found') await store.move(store.db, d.out_trade_no, ['accepted'], 'requesting');
      return retry.later(refusalText(q.refusal, ': '));
    }
    if (!q.listed) return retry.later('the refund query does not list this refund');
    if (q.amountCents !== d.refund_cents) return retry.later(`the refund query reports ${q.amountCents} instead of ${d.refund_cents}`);
    if (q.state === 'succeeded') {
      await this.duplicates.complete(asRefund(d), q.refundId);
      return { state: 'done', result: 'refunded' };
    }
    if (q.state === 'failed') {
      await this.duplicates.fail(asRefund(d), `channel: ${q.stateText}`);
      return { state: 'done', result: 'failed' };
    }
    return retry.later();
  }
}
