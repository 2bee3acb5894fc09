/**
 * Payment-result callbacks (specification section 6, DESIGN 2.5). `enqueue` writes the outbox row
 * inside the transaction of the state change; `deliverDue` (run by the worker) sends each row,
 * signed afresh per attempt with the secret of the app owning the sub-merchant, and records every
 * attempt. Success is a 2xx answer whose body is `OK` (surrounding whitespace ignored).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { signCallbackUrl, type CallbackStatus, type PaymentChannel } from '@kit/shared';
import type { Executor } from '../orders/prepay-store';
import type { AppService } from '../apps/app-service';
import type { MerchantService } from '../merchants/merchant-service';
import type { CallbackStore, OutboxRow } from './callback-store';

export interface CallbackOptions {
  /** Wait before retry n (1-based) is `retrySchedule[n-1]`; after the last one the row is given up. */
  retrySchedule: number[];
  timeoutMs: number;
  /** Rows claimed per round. */
  batch?: number;
  /** Attempts in flight at most. */
  concurrency?: number;
}

export interface CallbackEventInput {
  prepayId: string;
  status: CallbackStatus;
  subMerchantId: string;
  merchantId: string;
  ownerAppId: string;
  channel: PaymentChannel;
}

/** Bytes of the receiver's answer kept with each attempt. */
const HEAD_BYTES = 256;

export class CallbackService {
  private wake: () => void = () => undefined;
  private readonly inflight = new AbortController();
  private readonly running = new Set<Promise<void>>();

  constructor(
    readonly store: CallbackStore,
    private readonly merchants: MerchantService,
    private readonly apps: AppService,
    private readonly opts: CallbackOptions,
    private readonly log: Logger,
  ) {}

  /** The worker registers how to be woken when a row was committed. */
  setWake(wake: () => void): void {
    this.wake = wake;
  }

  /** Writes the callback row on the caller's transaction; call `committed()` after the commit. */
  enqueue(on: Executor, e: CallbackEventInput, now = Date.now()): Promise<boolean> {
    return this.store.insert(on, {
      event_key: `${e.prepayId}:${e.status}`,
      prepay_id: e.prepayId,
      status: e.status,
      sub_merchant_id: e.subMerchantId,
      merchant_id: e.merchantId,
      owner_app_id: e.ownerAppId,
      channel: e.channel,
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      claim_token: null,
      last_error: null,
      created_at: now,
      delivered_at: null,
    });
  }

  /** Starts delivery at once instead of at the next poll. */
  committed(): void {
    this.wake();
  }

  /**
   * Claims due rows and starts their attempts without waiting for them (a slow receiver must not
   * hold up the others), up to `concurrency` in flight. True when more may be due at once.
   */
  async deliverDue(now = Date.now()): Promise<boolean> {
    const room = Math.min(this.opts.batch ?? 32, (this.opts.concurrency ?? 64) - this.running.size);
    if (room <= 0) return false;
    const token = randomBytes(8).toString('hex');
    // The lease outlasts one attempt, so a live worker never loses its claim mid-attempt.
    const rows = await this.store.claimDue(now, room, now + this.opts.timeoutMs + 5_000, token);
    for (const row of rows) {
      const p: Promise<void> = this.attempt(row, token)
        .catch((err) => this.log.error({ err, outbox: row.id }, 'callback attempt failed to record'))
        .finally(() => {
          this.running.delete(p);
          this.wake();
        });
      this.running.add(p);
    }
    return rows.length === room;
  }

  /** Aborts attempts in flight (shutdown) and waits for them; their rows are retried when their lease ends. */
  async stop(): Promise<void> {
    this.inflight.abort();
    await Promise.all([...this.running]);
  }

  private async attempt(row: OutboxRow, token: string): Promise<void> {
    const attempt = row.attempts + 1;
    const started = Date.now();
    const params = await this.merchants.effectivePaymentParams(row.sub_merchant_id, row.channel as PaymentChannel).catch(() => ({}));
    const target = (params as { notifyCallbackUrl?: string }).notifyCallbackUrl;
    if (!target) {
      await this.store.insertAttempt({ outbox_id: row.id, attempt, at: started, url: null, http_status: null, latency_ms: 0, response_head: null, error: 'no notifyCallbackUrl configured' });
      await this.store.settle(row.id, token, { state: 'undeliverable', attempts: attempt, last_error: 'no notifyCallbackUrl configured' });
      this.log.warn({ prepayId: row.prepay_id, status: row.status }, 'callback undeliverable: no notifyCallbackUrl configured');
      return;
    }
    const secret = await this.apps.secretOf(row.owner_app_id);
    let httpStatus: number | null = null;
    let head: string | null = null;
    let error: string | null = null;
    let ok = false;
    // The URL's path and query as configured, without credentials a log line could leak.
    const shownUrl = redact(target);
    if (!secret) {
      error = `app ${row.owner_app_id} is unknown or disabled; cannot sign`;
    } else {
      const body = JSON.stringify({
        notifyTime: new Date(started).toISOString(),
        prepayId: row.prepay_id,
        status: row.status,
        subMerchantId: row.sub_merchant_id,
        merchantId: row.merchant_id,
      });
      try {
        const url = signCallbackUrl(target, body, { appId: row.owner_app_id, appSecret: secret }, started);
        const signal = AbortSignal.any([AbortSignal.timeout(this.opts.timeoutMs), this.inflight.signal]);
        const res = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', 'user-agent': 'merchant-kit-callback/1' },
          signal,
          redirect: 'manual',
        });
        httpStatus = res.status;
        const text = await readHead(res, 4096);
        head = text.slice(0, HEAD_BYTES);
        ok = res.status >= 200 && res.status < 300 && text.trim() === 'OK';
        if (!ok) error = res.status >= 200 && res.status < 300 ? 'answer was not OK' : `HTTP ${res.status}`;
      } catch (e) {
        if (this.inflight.signal.aborted) return; // shutting down: the lease brings it back
        const err = e as Error & { cause?: { code?: string } };
        error = err.name === 'TimeoutError' ? `no answer within ${this.opts.timeoutMs} ms` : `${err.message}${err.cause?.code ? ` (${err.cause.code})` : ''}`;
      }
    }
    const finished = Date.now();
    await this.store.insertAttempt({ outbox_id: row.id, attempt, at: started, url: shownUrl, http_status: httpStatus, latency_ms: finished - started, response_head: head, error });
    if (ok) {
      await this.store.settle(row.id, token, { state: 'delivered', attempts: attempt, delivered_at: finished, last_error: null });
      return;
    }
    const wait = this.opts.retrySchedule[attempt - 1];
    if (wait === undefined) {
      await this.store.settle(row.id, token, { state: 'failed', attempts: attempt, last_error: error });
      this.log.warn({ prepayId: row.prepay_id, status: row.status, attempts: attempt }, 'callback given up after the last retry');
    } else {
      await this.store.settle(row.id, token, { attempts: attempt, next_attempt_at: finished + wait, last_error: error });
    }
  }

  /** The callbacks of an order with their attempts (for operators and tests). */
  async history(prepayId: string) {
    const rows = await this.store.forPrepay(prepayId);
    return Promise.all(rows.map(async (r) => ({ ...r, attemptLog: await this.store.attempts(r.id) })));
  }
}

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

/** Reads at most `max` bytes of the answer, then stops. */
async function readHead(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
