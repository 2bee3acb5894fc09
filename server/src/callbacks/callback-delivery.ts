/**
 * Sends merchant callbacks (section 6): the handler of queue `callback`. Each attempt is signed
 * afresh (new `_t`, new `notifyTime`) with the secret of the app owning the sub-merchant, POSTed as
 * JSON to the effective `notifyCallbackUrl`, and recorded. Success is a 2xx answer whose body is
 * `OK` (surrounding whitespace ignored); anything else is retried on the schedule, then given up.
 */
import type { Logger } from 'pino';
import { signCallbackUrl } from '@kit/shared';
import type { AppService } from '../apps/app-service';
import type { Metrics } from '../metrics/metrics';
import type { MerchantService } from '../merchants/merchant-service';
import type { JobRow, JobSettlement } from '../jobs/job-store';
import type { JobHandler } from '../workers/job-worker';
import type { CallbackEventInput } from './callback-service';
import type { CallbackStore } from './callback-store';
import { post, PostTimeoutError } from '../http/post-client';

export interface CallbackDeliveryOptions {
  /** Wait before retry n (1-based) is `retrySchedule[n-1]`; after the last one the callback is given up. */
  retrySchedule: readonly number[];
  timeoutMs: number;
  /** Attempts in flight at most in this process. */
  concurrency?: number;
}

/** Bytes of the receiver's answer kept with each attempt. */
const HEAD_BYTES = 256;
const NO_URL = 'no notifyCallbackUrl configured';

export class CallbackDelivery implements JobHandler {
  readonly queue = 'callback' as const;
  readonly concurrency: number;
  readonly leaseMs: number;

  constructor(
    private readonly store: CallbackStore,
    private readonly merchants: MerchantService,
    private readonly apps: AppService,
    private readonly opts: CallbackDeliveryOptions,
    private readonly log: Logger,
    private readonly metrics?: Pick<Metrics, 'callbackAttempt'>,
  ) {
    this.concurrency = opts.concurrency ?? 64;
    this.leaseMs = opts.timeoutMs + 5_000;
  }

  async run(job: JobRow, signal: AbortSignal): Promise<JobSettlement> {
    const e = JSON.parse(job.payload) as CallbackEventInput;
    const attempt = job.attempts + 1;
    const started = Date.now();
    const params = await this.merchants.effectivePaymentParams(e.subMerchantId, e.channel).catch(() => ({}));
    const target = (params as { notifyCallbackUrl?: string }).notifyCallbackUrl;
    if (!target) {
      await this.store.insertAttempt({ job_id: job.id, attempt, at: started, url: null, http_status: null, latency_ms: 0, response_head: null, error: NO_URL });
      this.log.warn({ prepayId: e.prepayId, status: e.status }, `callback undeliverable: ${NO_URL}`);
      this.metrics?.callbackAttempt('gave_up');
      return { state: 'failed', result: 'undeliverable', error: NO_URL };
    }
    const sent = await this.send(e, target, started, signal);
    if (signal.aborted) return { state: 'pending', nextAt: started }; // not recorded: the lease brings it back
    const finished = Date.now();
    await this.store.insertAttempt({
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
      return { state: 'done', result: 'delivered' };
    }
    const wait = this.opts.retrySchedule[attempt - 1];
    this.metrics?.callbackAttempt(wait === undefined ? 'gave_up' : sent.timedOut ? 'timeout' : sent.httpStatus === null ? 'network_error' : 'refused');
    const failure = { prepayId: e.prepayId, status: e.status, attempt, httpStatus: sent.httpStatus ?? undefined, error: sent.error };
    if (wait === undefined) {
      this.log.warn(failure, 'callback given up after the last retry');
      return { state: 'failed', result: 'failed', error: sent.error };
    }
    const nextAt = finished + wait;
    this.log.warn({ ...failure, nextAttemptAt: new Date(nextAt).toISOString() }, 'callback delivery failed; will retry');
    return { state: 'pending', nextAt, error: sent.error };
  }

  private async send(e: CallbackEventInput, target: string, at: number, signal: AbortSignal) {
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
        timeoutMs: this.opts.timeoutMs,
        signal,
        maxBytes: 4096,
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
