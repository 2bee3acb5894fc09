/**
 * Callback operations (design 5.3) for the app that owns the merchant: the callbacks with every
 * attempt, resending one, recovering the given-up callbacks of a window. A resend or a recovery
 * starts a fresh series of attempts on the retry schedule, freshly signed by the delivery; a
 * callback already pending is never doubled (`CallbackStore.rearm`): a resend brings its next
 * attempt forward instead. Callbacks of merchants the app does not own are `not_found`, as orders are.
 */
import {
  CALLBACK_ANSWER_BYTES,
  CALLBACK_PAGE_DEFAULT,
  KitError,
  PAY_VERSION,
  type CallbackDeliveryState,
  type CallbackItem,
  type CallbackListResponse,
  type CallbackRecoverRequest,
  type CallbackRecoverResponse,
  type CallbackResendResponse,
  type callbackListQuerySchema,
} from '@kit/shared';
import type { z } from 'zod';
import type { Jobs } from '../jobs/jobs';
import type { JobState } from '../jobs/job-tables';
import type { MerchantService } from '../merchants/merchant-service';
import type { CallbackEventInput } from './callback-service';
import { CALLBACK_QUEUE, type CallbackStore } from './callback-store';

type ListQuery = z.output<typeof callbackListQuerySchema>;

const JOB_STATE: Record<CallbackDeliveryState, JobState> = { pending: 'pending', delivered: 'done', given_up: 'failed' };

export class CallbackOperations {
  constructor(
    private readonly store: CallbackStore,
    private readonly merchants: MerchantService,
    private readonly jobs: Jobs,
  ) {}

  async list(appId: string, q: ListQuery): Promise<CallbackListResponse> {
    const shops = q.merchantId ? await this.subMerchantsOf(appId, q.merchantId) : [];
    if (q.prepayId) {
      const sub = await this.store.subMerchantOf(q.prepayId);
      if (!sub || !(await this.owns(appId, sub))) throw new KitError('not_found', `prepay order "${q.prepayId}" does not exist`);
    }
    const limit = q.limit ?? CALLBACK_PAGE_DEFAULT;
    const scope = q.prepayId ? { prepayId: q.prepayId } : { subMerchantIds: shops };
    const rows = await this.store.list(
      scope,
      {
        state: q.state && JOB_STATE[q.state],
        since: q.since ? Date.parse(q.since) : undefined,
        until: q.until ? Date.parse(q.until) : undefined,
        before: q.cursor ? Number(q.cursor) : undefined,
      },
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const attempts = await this.store.attemptsOf(page.map((r) => r.id));
    const items = page.map((r): CallbackItem => {
      const own = attempts.filter((a) => a.job_id === r.id);
      const event = (JSON.parse(r.payload) as CallbackEventInput).status;
      const state: CallbackDeliveryState = r.state === 'pending' ? 'pending' : r.state === 'done' ? 'delivered' : 'given_up';
      return {
        id: String(r.id),
        prepayId: r.ref,
        event,
        state,
        subMerchantId: r.sub_merchant_id,
        merchantId: r.merchant_id,
        url: own.at(-1)?.url ?? null,
        createdAt: iso(r.created_at),
        attempts: own.map((a) => ({
          at: iso(a.at),
          httpStatus: a.http_status,
          error: a.error,
          latencyMs: Number(a.latency_ms),
          answer: a.response_head === null ? null : headBytes(a.response_head, CALLBACK_ANSWER_BYTES),
        })),
        nextAttemptAt: state === 'pending' ? iso(r.next_at) : null,
      };
    });
    const data: CallbackListResponse['data'] = { items };
    if (rows.length > limit) data.next = String(page[page.length - 1].id);
    return { version: PAY_VERSION, status: 'success', data };
  }

  /**
   * `signedAt`, when the caller signed the call, is when it asked: resends sent together are
   * satisfied by the series the first of them started, even one that ended before the last of them
   * was read (the service's clock bounds it, for a caller whose clock runs ahead).
   */
  async resend(appId: string, id: string, signedAt?: number): Promise<CallbackResendResponse> {
    const now = this.jobs.store.clock.now();
    const askedAt = signedAt === undefined ? now : Math.min(signedAt, now);
    const row = await this.store.byId(Number(id));
    if (!row || !(await this.owns(appId, row.sub_merchant_id))) throw new KitError('not_found', `callback "${id}" does not exist`);
    // The endpoint was just fixed: an ended callback starts a new series, a pending one waiting for
    // its next attempt has it now. Either way one series, whatever races this call.
    const resent = (await this.store.rearm(row.id, askedAt)) || (await this.store.bringForward(row.id, Number(row.next_at)));
    if (resent) this.jobs.wake(CALLBACK_QUEUE);
    return { version: PAY_VERSION, status: 'success', data: { id, state: 'pending', resent } };
  }

  async recover(appId: string, body: CallbackRecoverRequest): Promise<CallbackRecoverResponse> {
    const shops = await this.subMerchantsOf(appId, body.merchantId);
    const resent = await this.store.rearmGivenUp(shops, Date.parse(body.since), Date.parse(body.until));
    if (resent) this.jobs.wake(CALLBACK_QUEUE);
    return { version: PAY_VERSION, status: 'success', data: { resent } };
  }

  /** The sub-merchants whose callbacks a merchant id stands for: itself, or a parent's sub-merchants. */
  private async subMerchantsOf(appId: string, merchantId: string): Promise<string[]> {
    const m = await this.merchants.findWithParent(merchantId);
    if (!m || (m.app_id !== appId && m.parent_app_id !== appId)) throw new KitError('not_found', `merchant "${merchantId}" does not exist`);
    return m.kind === 'subMerchant' ? [m.id] : (await this.merchants.children(m.id)).map((c) => c.id);
  }

  /** The app owns the merchant or its parent. */
  private async owns(appId: string, merchantId: string): Promise<boolean> {
    const m = await this.merchants.findWithParent(merchantId);
    return !!m && (m.app_id === appId || m.parent_app_id === appId);
  }
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** The first `max` bytes of a UTF-8 text, never cutting a character in half. */
function headBytes(text: string, max: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= max) return text;
  return buf
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
