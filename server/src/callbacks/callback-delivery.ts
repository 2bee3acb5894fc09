/**
 * Sends merchant callbacks (section 6): the handler of queue `callback`. Each attempt is signed
 * afresh (new `_t`, new `notifyTime`) with the secret of the app owning the sub-merchant, POSTed as
 * JSON to the effective `notifyCallbackUrl`, and recorded. Success is a 2xx answer whose body is
 * `OK` (surrounding whitespace ignored); anything else is retried on the schedule, then given up.
 */
import type { Clock } from '@kit/shared/clock';
import type { Logger } from 'pino';
import { signCallbackUrl } from '@kit/shared';
import type { AppService } from '../apps/app-service';
import type { Metrics } from '../metrics/metrics';
import type { MerchantService } from '../merchants/merchant-service';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { JobHandler } from '../jobs/job-worker';
import type { Retry } from '../jobs/retry';
import type { CallbackEventInput } from './callback-service';
import { CALLBACK_QUEUE, type CallbackStore } from './callback-store';
import { post, PostTimeoutError } from '../http/post-client';
import type { OutboundPolicy } from '../security/outbound-url';

export interface CallbackDeliveryOptions {
  timeoutMs: number;
  /** Attempts in flight at most in this process. */
  concurrency?: number;
  /** Where callbacks may go (CALLBACK_ALLOW_PRIVATE); checked again at every connection. */
  outbound?: OutboundPolicy;
  /** The service's clock: attempts' times, the notification's `notifyTime`, an attempt's time limit. */
  clock: Clock;
}

/** Bytes of the receiver's answer kept with each attempt. */
const HEAD_BYTES = 256;
const NO_URL = 'no notifyCallbackUrl configured';

export class CallbackDelivery implements JobHandler {
  readonly queue = CALLBACK_QUEUE;
  readonly concurrency: number;
  readonly leaseMs: number;
  /**
   * The callbacks of the commits of a few milliseconds are claimed together: at a payment rush one
   * claim per group commit was 0.4 claim queries per payment.
   */
  readonly batchMs = 5;

  constructor(
    private readonly store: CallbackStore,
    private readonly merchants: MerchantService,
    private readonly apps: AppService,
    private readonly opts: CallbackDeliveryOptions,
    private readonly log: Logger,
    private readonly metrics?: Pick<Metrics, 'callbackAttempt'>,
  ) {
    this.concurrency = opts.concurrency ?? 64;
    // No longer than one attempt: a callback whose instance died (kill -9) is retried after at
    // most CALLBACK_TIMEOUT, and the attempt's own deadline is cut to end inside the lease.
    this.leaseMs = opts.timeoutMs;
  }

  async run(job: JobRow, signal: AbortSignal, retry: Retry): Promise<JobSettlement> {
    const e = JSON.parse(job.payload) as CallbackEventInput;
    const attempt = job.attempts + 1;
    const started = this.opts.clock.now();
    const params = await this.merchants.effectivePaymentParams(e.subMerchantId, e.channel).catch(() => ({}));
    const target = (params as { notifyCallbackUrl?: string }).notifyCallbackUrl;
    if (!target) {
      const alongside = this.store.attempt({
        job_id: job.id,
        attempt,
        at: started,
        url: null,
        http_status: null,
        latency_ms: 0,
        response_head: null,
        error: NO_URL,
      });
      this.log.warn({ prepayId: e.prepayId, status: e.status }, `callback undeliverable: ${NO_URL}`);
      this.metrics?.callbackAttempt('gave_up');
      return { state: 'failed', result: 'undeliverable', error: NO_URL, alongside };
    }
    // `job.next_at` is the end of this claim: the attempt and its record must fit inside it, or a
    // worker elsewhere could take the job over while this one is still delivering it.
    const deadline = Math.min(this.opts.timeoutMs, job.next_at - this.opts.clock.now() - settleMargin(this.opts.timeoutMs));
    const sent = await this.send(e, target, started, signal, Math.max(1, deadline));
    if (signal.aborted) return { state: 'pending', nextAt: started }; // not recorded: the lease brings it back
    const finished = this.opts.clock.now();
    // Recorded with the job's settlement, in the same statement on PostgreSQL (issue 34).
    const alongside = this.store.attempt({
      job_id: job.id,
      attempt,
      at: started,
      url: redact(target),
      http_status: sent.httpStatus,
      latency_ms: finished - started,
      response_head: sent.head,
      error: sent.error,
    });
    if (sent.ok) {
      this.metrics?.callbackAttempt('delivered');
      return { state: 'done', result: 'delivered', alongside };
    }
    // CALLBACK_RETRY_SCHEDULE (the queue's policy): after its last wait the callback is given up.
    const wait = retry.nextWait();
    this.metrics?.callbackAttempt(wait === undefined ? 'gave_up' : sent.timedOut ? 'timeout' : sent.httpStatus === null ? 'network_error' : 'refused');
    const failure = { prepayId: e.prepayId, status: e.status, attempt, httpStatus: sent.httpStatus ?? undefined, error: sent.error };
    if (wait === undefined) {
      // An error, not a warning: the merchant missed an event until someone resends it (`/callbacks`, the console).
      this.log.error(failure, 'callback given up after the last retry');
      return { state: 'failed', result: 'failed', error: sent.error, alongside };
    }
    const nextAt = finished + wait;
    this.log.warn({ ...failure, nextAttemptAt: new Date(nextAt).toISOString() }, 'callback delivery failed; will retry');
    return { state: 'pending', nextAt, error: sent.error, alongside };
  }

  private async send(e: CallbackEventInput, target: string, at: number, signal: AbortSignal, timeoutMs: number) {
    const result = { ok: false, httpStatus: null as number | null, head: null as string | null, error: null as string | null, timedOut: false };
    const secret = await this.apps.secretOf(e.ownerAppId);
    if (!secret) return { ...result, error: `app ${e.ownerAppId} is unknown or disabled; cannot sign` };
    const body = JSON.stringify({
      notifyTime: new Date(at).toISOString(),
      prepayId: e.prepayId,
      status: e.status,
      subMerchantId: e.subMerchantId,
      merchantId: e.merchantId,
    });
    try {
      const url = signCallbackUrl(target, body, { appId: e.ownerAppId, appSecret: secret }, at);
      const res = await post(url, body, {
        headers: { 'content-type': 'application/json', 'user-agent': 'merchant-kit-callback/1' },
        timeoutMs,
        clock: this.opts.clock,
        signal,
        maxBytes: 4096,
        outbound: this.opts.outbound,
      });
      const ok = res.status >= 200 && res.status < 300 && res.head.trim() === 'OK';
      return {
        ok,
        timedOut: false,
        httpStatus: res.status,
        head: res.head.slice(0, HEAD_BYTES),
        error: ok ? null : res.status >= 200 && res.status < 300 ? 'answer was not OK' : `HTTP ${res.status}`,
      };
    } catch (err) {
      const timedOut = err instanceof PostTimeoutError;
      return { ...result, error: (err as Error).message ?? String(err), timedOut };
    }
  }
}

/** Time kept at the end of a lease for recording the attempt: a tenth of the timeout, at most a second. */
function settleMargin(timeoutMs: number): number {
  return Math.min(1_000, Math.floor(timeoutMs / 10));
}

/** The URL without credentials a log line or the attempt table could leak. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}
