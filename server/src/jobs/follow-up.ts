/**
 * The frame the follow-up handlers share (the payment reconciler, the refund follower, the
 * profit-sharing follower: docs/payments.md, "Money paths converge on their own"). Each carries
 * something to a definite end by asking a channel again and again; what they have in common is
 * written here once: their queue's concurrency, a lease long enough for every channel call one
 * run may make, a channel that cannot be reached being asked again under the queue's policy, and
 * the `kit_reconciliations_total` count of every run. Their own rules stay in their own files (`FollowUpRules`).
 */
import { isKitError } from '@kit/shared';
import type { Metrics, ReconciliationKind, ReconciliationOutcome } from '../metrics/metrics';
import type { JobRow, JobSettlement } from './job-store';
import type { QueueName } from './job-tables';
import type { JobHandler } from './job-worker';
import type { Retry } from './retry';

/** Runs of one follow-up queue in flight at most in this process. */
const FOLLOW_UP_CONCURRENCY = 16;
/** Beyond its channel calls, a run reads and writes a few rows. */
const LEASE_SLACK_MS = 5_000;

/** What one follower decides: the rest is the frame's. */
export interface FollowUpRules {
  readonly queue: QueueName;
  /** The most channel calls one run makes (each bounded by PAY_GATEWAY_TIMEOUT): the lease covers them all. */
  readonly channelCalls: number;
  /** Its runs' kind in `kit_reconciliations_total`. */
  readonly metricKind: ReconciliationKind;
  /** How a run's end is counted. */
  outcome(settled: JobSettlement): ReconciliationOutcome;
  /** One run: its own rules. A `KitError` it throws (the channel could not be reached) is the frame's to retry. */
  follow(job: JobRow, retry: Retry): Promise<JobSettlement>;
}

export class FollowUp implements JobHandler {
  readonly queue: QueueName;
  readonly concurrency = FOLLOW_UP_CONCURRENCY;
  readonly leaseMs: number;

  constructor(
    private readonly rules: FollowUpRules,
    opts: { channelTimeoutMs: number },
    private readonly metrics?: Pick<Metrics, 'reconciliation'>,
  ) {
    this.queue = rules.queue;
    this.leaseMs = rules.channelCalls * opts.channelTimeoutMs + LEASE_SLACK_MS;
  }

  async run(job: JobRow, _signal: AbortSignal, retry: Retry): Promise<JobSettlement> {
    let settled: JobSettlement;
    try {
      settled = await this.rules.follow(job, retry);
    } catch (err) {
      if (!isKitError(err)) throw err;
      settled = retry.unreachable(err.message);
    }
    this.metrics?.reconciliation(this.rules.metricKind, this.rules.outcome(settled));
    return settled;
  }
}
