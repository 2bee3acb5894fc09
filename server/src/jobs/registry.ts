/**
 * The job registry: every queue of the kit, its handler, its retry policy, its poll interval and
 * how long its ended jobs are kept, one entry each. A
 * new kind of background work is a handler file (a `JobHandler`, in its feature's folder) and a
 * line here; `services.ts` passes the handlers in, `runtime.ts` starts one worker per line. The
 * sandbox registers its own queue (`sandbox/src/sandbox.ts`, through its plug-in): production code does not know it.
 */
import type { Config } from '../config';
import type { JobHandler, JobKind } from './job-worker';

/** The handlers of the kit's queues, built in `services.ts`. */
export interface KitJobHandlers {
  /** `profit-sharing.follow`: carries a split (or finish) to the channel and follows its receivers' results. */
  profitSharingFollower: JobHandler;
  /** `callback`: a merchant callback (section 6), written with the state change that causes it. */
  callbackDelivery: JobHandler;
  /** `payment.reconcile`: asks the channel about a channel order until it is paid or closed (closed while its platform may still take a payment: until it no longer can). */
  paymentFollower: JobHandler;
  /** `refund.follow`: carries a refund to the channel and follows it until it completes. */
  refundFollower: JobHandler;
  /** `payment.duplicate`: refunds a second payment of an already paid order and follows that refund until it completes. */
  duplicateRefundFollower: JobHandler;
  /** `reconcile.daily`: one day with one channel's trade bill (key `<date>/<channel>`: once across instances). */
  dailyReconciliation: JobHandler;
}

export function kitJobs(config: Config, h: KitJobHandlers): JobKind[] {
  // Follow-ups are forgotten after JOB_RETENTION; callbacks (their attempts are what the console and
  // 4.x's callback calls show) and daily reconciliations (one per day and channel, by key) are kept.
  const followUp = { pollMs: config.JOB_POLL_INTERVAL, retentionMs: config.JOB_RETENTION };
  const kept = { pollMs: config.JOB_POLL_INTERVAL, retentionMs: null };
  return [
    {
      handler: h.profitSharingFollower,
      retry: { schedule: config.PROFIT_SHARING_QUERY_SCHEDULE, firstWaitBeforeFirstRun: true, whenOver: 'repeat-last' },
      ...followUp,
    },
    {
      handler: h.callbackDelivery,
      retry: { schedule: config.CALLBACK_RETRY_SCHEDULE, firstWaitBeforeFirstRun: false, whenOver: 'give-up' },
      pollMs: config.CALLBACK_POLL_INTERVAL,
      retentionMs: null,
    },
    {
      ...followUp,
      handler: h.paymentFollower,
      // An active order's queries end with the schedule (expiry settles the rest); a channel that cannot be reached is asked again and again.
      retry: {
        schedule: config.PAYMENT_QUERY_SCHEDULE,
        firstWaitBeforeFirstRun: true,
        whenOver: { done: 'unpaid; expiry settles it' },
        unreachable: 'repeat-last',
      },
    },
    // Refunds can take days at a bank: after the schedule, its last wait repeats.
    { handler: h.refundFollower, retry: { schedule: config.PAYMENT_QUERY_SCHEDULE, firstWaitBeforeFirstRun: true, whenOver: 'repeat-last' }, ...followUp },
    // A second payment is refunded at once (its job is due when recorded); then as a refund is followed.
    {
      handler: h.duplicateRefundFollower,
      retry: { schedule: config.PAYMENT_QUERY_SCHEDULE, firstWaitBeforeFirstRun: false, whenOver: 'repeat-last' },
      ...followUp,
    },
    // Its job is due at once (after RECONCILE_AT): the schedule's first wait follows the first run.
    {
      handler: h.dailyReconciliation,
      retry: { schedule: config.RECONCILE_RETRY_SCHEDULE, firstWaitBeforeFirstRun: false, whenOver: 'repeat-last' },
      ...kept,
    },
  ];
}

/** One handler per queue: two registrations of a queue would run its jobs twice as fast, each by its own rules. */
export function checkRegistry(kinds: readonly JobKind[]): JobKind[] {
  const seen = new Set<string>();
  for (const k of kinds) {
    if (seen.has(k.handler.queue)) throw new Error(`job queue ${k.handler.queue} is registered twice`);
    seen.add(k.handler.queue);
  }
  return [...kinds];
}
