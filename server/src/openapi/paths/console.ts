/**
 * The router behind the merchant console (`/console/api/*`, design 5.3) and its page. It holds the
 * app secret the page must not and calls the service's own API for it; merchants' backends use
 * `/callbacks` directly instead.
 */
import { z } from 'zod';
import {
  DIFFERENCE_KINDS,
  DIFFERENCE_RESOLUTIONS,
  ORDER_STATUSES,
  PAYMENT_CHANNELS,
  callbackItemSchema,
  reconciliationDifferenceSchema,
  reconciliationTotalsSchema,
} from '@kit/shared';
import {
  consoleCallbacksQuerySchema,
  consoleLoginSchema,
  consoleOrderIdSchema,
  consoleOrdersQuerySchema,
  consoleReconciliationDateSchema,
  consoleRecoverSchema,
} from '@kit/shared/api/console-schemas';
import { html, success, type RouteDoc } from '../describe';

const session = z.object({
  merchantId: z.string(),
  displayName: z.string(),
  parentMerchantId: z.string().nullable(),
  merchants: z.array(z.object({ id: z.string(), displayName: z.string() })),
  receiver: z.boolean(),
});
const line = z.object({
  prepayId: z.string(),
  subMerchantId: z.string(),
  amount: z.string(),
  status: z.enum(ORDER_STATUSES),
  createTime: z.string(),
  paymentTime: z.string().optional(),
  paymentChannel: z.enum(PAYMENT_CHANNELS).optional().openapi({ description: 'The wallet that paid (4.7 channel names), once paid' }),
});
const detail = line.extend({
  merchantName: z.string(),
  timeline: z.array(z.object({ at: z.string(), kind: z.string(), cause: z.string(), detail: z.record(z.string()).optional() })),
  callbacks: z.array(callbackItemSchema),
  splits: z.array(
    z.object({
      outOrderNo: z.string(),
      kind: z.string(),
      state: z.string(),
      amount: z.string(),
      createdAt: z.string(),
      receivers: z.array(z.object({}).passthrough()),
    }),
  ),
  refundable: z.boolean(),
  refund: z
    .object({ state: z.string(), amount: z.string(), requestedAt: z.string(), completedAt: z.string().optional(), error: z.string().optional() })
    .nullable(),
  // An order is paid once: a second payment through another channel order, refunded automatically.
  duplicatePayments: z.array(
    z.object({
      channel: z.string(),
      outTradeNo: z.string(),
      transactionId: z.string(),
      amount: z.string(),
      paidAt: z.string().optional(),
      refundState: z.string(),
      outRefundNo: z.string(),
      refundedAt: z.string().optional(),
      error: z.string().optional(),
    }),
  ),
});

const con = (doc: Omit<RouteDoc, 'tag' | 'auth'> & { auth?: RouteDoc['auth'] }): RouteDoc => ({ tag: 'Console router', auth: 'consoleCookie', ...doc });

export const consoleRoutes: RouteDoc[] = [
  con({
    method: 'post',
    path: '/console/api/login',
    summary: 'Merchant login (4.16) with a parent merchant or sub-merchant id and password; sets the httpOnly login cookie',
    auth: 'none',
    body: consoleLoginSchema,
    answer: success(1, { session }),
    errors: ['login_failed', 'secure_connection_required', 'merchant_disabled'],
  }),
  con({ method: 'post', path: '/console/api/logout', summary: 'Ends the login (revokes its token, clears the cookie)', auth: 'none', answer: success(1, {}) }),
  con({
    method: 'get',
    path: '/console/api/session',
    summary: 'Who is logged in: `session: null` when nobody is (`expired: true` when the cookie’s login ended)',
    auth: 'none',
    answer: success(1, { session: session.nullable(), expired: z.boolean().optional() }),
  }),
  con({
    method: 'get',
    path: '/console/api/orders',
    summary: 'One day’s orders of the login’s merchants (a parent: all its sub-merchants), by status and sub-merchant; or one order by prepay id',
    query: consoleOrdersQuerySchema,
    answer: success(1, { orders: z.array(line) }),
    errors: ['login_invalid', 'invalid_request', 'not_found'],
  }),
  con({
    method: 'get',
    path: '/console/api/orders/:prepayId',
    summary: 'An order’s story: timeline of state changes with their causes, callbacks with every attempt, refund, profit-sharing splits',
    params: consoleOrderIdSchema,
    answer: success(1, { order: detail }),
    errors: ['login_invalid', 'not_found'],
  }),
  con({
    method: 'post',
    path: '/console/api/orders/:prepayId/refund',
    summary: 'Full refund (4.6) with the login’s own token, then the order’s story',
    params: consoleOrderIdSchema,
    answer: success(1, { order: detail }),
    errors: ['login_invalid', 'not_found', 'order_not_paid', 'order_already_refunded', 'refund_in_progress', 'channel_error', 'channel_unavailable'],
  }),
  con({
    method: 'get',
    path: '/console/api/callbacks',
    summary: 'The login’s callbacks (GET /callbacks for its merchant), newest first, optionally of one state or of one order',
    query: consoleCallbacksQuerySchema,
    answer: success(1, { callbacks: z.array(callbackItemSchema) }),
    errors: ['login_invalid'],
  }),
  con({
    method: 'post',
    path: '/console/api/callbacks/:id/resend',
    summary: 'POST /callbacks/resend for one of the login’s callbacks',
    params: z.object({ id: z.string() }),
    answer: success(1, { resent: z.boolean() }),
    errors: ['login_invalid', 'not_found'],
  }),
  con({
    method: 'post',
    path: '/console/api/callbacks/recover',
    summary: 'POST /callbacks/recover for the login’s merchant and a window',
    body: consoleRecoverSchema,
    answer: success(1, { resent: z.number() }),
    errors: ['login_invalid', 'invalid_request'],
  }),
  con({
    method: 'get',
    path: '/console/api/reconciliation',
    summary: 'The reconciled days (newest first, at most 60), each with the login’s merchants’ differences counted by kind and resolution',
    answer: success(1, {
      days: z.array(
        z.object({
          date: z.string(),
          channel: z.string(),
          state: z.enum(['running', 'done', 'pending', 'failed']),
          error: z.string().optional(),
          differences: z.number().int(),
          open: z.number().int(),
          byKind: z.record(z.enum(DIFFERENCE_KINDS), z.number().int()),
          byResolution: z.record(z.enum(DIFFERENCE_RESOLUTIONS), z.number().int()),
        }),
      ),
    }),
    errors: ['login_invalid'],
  }),
  con({
    method: 'get',
    path: '/console/api/reconciliation/:date',
    summary: 'A China date’s reconciliation: the differences of the login’s merchants per channel, open ones first',
    params: consoleReconciliationDateSchema,
    answer: success(1, {
      reports: z.array(
        z.object({ date: z.string(), channel: z.string(), totals: reconciliationTotalsSchema, differences: z.array(reconciliationDifferenceSchema) }),
      ),
    }),
    errors: ['login_invalid', 'invalid_request', 'not_found'],
  }),
  con({
    method: 'post',
    path: '/console/api/reconciliation/:date/run',
    summary: 'Reconcile now: the daily job’s run of a China date (today at the latest) with each channel’s bill, at once; running a day again changes nothing',
    description:
      'Each channel with a bill is `done`, `not_ready` (the channel is still making its bill; the daily run tries again) or `failed` (the bill cannot be had or read: `error` says why).',
    params: consoleReconciliationDateSchema,
    answer: success(1, {
      runs: z.array(z.object({ channel: z.string(), outcome: z.enum(['done', 'not_ready', 'failed']), error: z.string().optional() })),
    }),
    errors: ['login_invalid', 'invalid_request', 'channel_unavailable'],
  }),
  con({
    method: 'get',
    path: '/console/api/receiver',
    summary: 'What the development receiver (/sandbox/receiver) got for the login’s merchants; empty without the sandbox',
    answer: success(1, {
      received: z.array(
        z.object({ at: z.string(), url: z.string(), body: z.string(), signature: z.string(), prepayId: z.string().optional(), status: z.string().optional() }),
      ),
    }),
    errors: ['login_invalid'],
  }),
  {
    method: 'get',
    path: '/console/',
    tag: 'Pages',
    auth: 'none',
    summary: 'The merchant console (orders, their story, callbacks)',
    answer: html("The console's page"),
  },
  {
    method: 'get',
    path: '/console/index.html',
    tag: 'Pages',
    auth: 'none',
    summary: 'The merchant console (same page as /console/)',
    answer: html("The console's page"),
  },
];
