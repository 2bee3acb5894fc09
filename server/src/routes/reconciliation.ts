/** `GET /reconciliation` and `GET /reconciliation/<date>` (docs/reconciliation.md): reconciled days as a merchant app may read them. Signed. */
import { z } from 'zod';
import {
  PAY_VERSION,
  reconciliationDateSchema,
  reconciliationListQuerySchema,
  reconciliationListResponseSchema,
  reconciliationResponseSchema,
  type PaymentChannel,
} from '@kit/shared';
import { defineRoute } from './route';

/** A report's channel is kept as text in its table, always written from the channel registry: one of `PAYMENT_CHANNELS`. */
const ofChannel = <T extends { channel: string }>(report: T) => report as T & { channel: PaymentChannel };

export const listReconciliations = defineRoute({
  method: 'get',
  path: '/reconciliation',
  tag: 'Reconciliation',
  auth: 'signed',
  summary: "The reconciled days, newest first, with how many differences of the caller's merchants each has and how many are open",
  description:
    'At most `limit` (default 30, at most 100) day and channel reports, of days before `before` when given. A `failed` day could not have or read its bill (`error`); the daily run tries it again.',
  query: reconciliationListQuerySchema,
  answer: reconciliationListResponseSchema,
  errors: ['invalid_request'],
  example: {
    answer: {
      version: 1,
      status: 'success',
      data: { reports: [{ date: '2026-11-23', channel: 'SocialNative', state: 'done', differences: 2, open: 1 }] },
    },
  },
  handler: async ({ services, query, caller }) => {
    const reports = await services.reconciliation.listForApp(caller.appId, Number(query.limit ?? 30), query.before);
    return { version: PAY_VERSION, status: 'success' as const, data: { reports: reports.map(ofChannel) } };
  },
});

export const reconciliationOfDay = defineRoute({
  method: 'get',
  path: '/reconciliation/:date',
  tag: 'Reconciliation',
  auth: 'signed',
  summary: "A China date's reconciliation with the channels' trade bills: the differences of the caller's merchants",
  description:
    "Each channel's report of the day once it is done (docs/reconciliation.md), with the differences that concern the signing app's merchants (owned, or sub-merchants of an owned parent; a payment only the channel knows is shown to the apps whose merchants carry its channel merchant number). 404 `not_found` until the day is reconciled.",
  params: z.object({ date: reconciliationDateSchema.openapi({ example: '2026-11-23' }) }),
  answer: reconciliationResponseSchema,
  errors: ['invalid_request', 'not_found'],
  example: {
    answer: {
      version: 1,
      status: 'success',
      data: {
        date: '2026-11-23',
        reports: [
          {
            channel: 'SocialNative',
            state: 'done',
            differences: [
              {
                kind: 'status_mismatch',
                outTradeNo: 'Xb3kq9ZtV0pL2mN8cR4sT6uW1yA5',
                prepayId: 'wx23101512345678901234567890',
                kit: { status: 'active', amount: '3.21' },
                channel: { status: 'SUCCESS', amount: '3.21' },
                resolution: 'settled',
              },
            ],
          },
        ],
      },
    },
  },
  handler: async ({ services, params, caller }) => {
    const { date, reports } = await services.reconciliation.forApp(caller.appId, params.date);
    return { version: PAY_VERSION, status: 'success' as const, data: { date, reports: reports.map(ofChannel) } };
  },
});
