/** Under /callbacks (design 5.3): the callback operations API, signed by the app that owns the merchant. */
import {
  callbackListQueryObject,
  callbackListQuerySchema,
  callbackListResponseSchema,
  callbackRecoverRequestSchema,
  callbackRecoverResponseSchema,
  callbackResendRequestSchema,
  callbackResendResponseSchema,
} from '@kit/shared';
import { defineRoute } from './route';

const ops = { tag: 'Callbacks', auth: 'signed' } as const;

export const listCallbacks = defineRoute({
  ...ops,
  method: 'get',
  path: '/callbacks',
  section: '6',
  summary: 'The callbacks of an order or of a merchant, newest first, each with every attempt',
  description:
    'Give `prepayId`, or `merchantId` (a parent merchant takes its sub-merchants in) with optional `state` and creation window `since` ≤ t < `until` (ISO 8601). ' +
    'Signed by the app that owns the merchant (or its parent); other apps get `not_found`. `answer` holds the first 200 bytes the receiver sent. ' +
    'When `data.next` is present, pass it as `cursor` for the next page (`limit`, default 50, at most 100).',
  query: callbackListQuerySchema,
  // The check also takes the signature's fields and says which fields go together; the reference shows the fields.
  documented: { query: callbackListQueryObject },
  example: {
    answer: {
      version: 1,
      status: 'success',
      data: {
        items: [
          {
            id: '42',
            prepayId: 'Qx81Fk2LmZ0a',
            event: 'finish',
            state: 'given_up',
            subMerchantId: 'SM7bR2kWq4Yd',
            merchantId: 'PM3hT6vQ9cXe',
            url: 'https://shop.example/hooks/kit',
            createdAt: '2026-01-31T09:00:00.000Z',
            attempts: [{ at: '2026-01-31T09:00:00.120Z', httpStatus: 502, error: 'HTTP 502', latencyMs: 38, answer: 'Bad Gateway' }],
            nextAttemptAt: null,
          },
        ],
      },
    },
  },
  answer: callbackListResponseSchema,
  errors: ['invalid_request', 'not_found'],
  handler: ({ services, query, caller }) => services.callbackOps.list(caller.appId, query),
});

export const resendCallback = defineRoute({
  ...ops,
  method: 'post',
  path: '/callbacks/resend',
  summary: 'Deliver a callback again now, freshly signed, as a new series of attempts on the retry schedule',
  description:
    'A callback already pending is not doubled: one waiting for its next retry is attempted now, within its series; one being attempted goes on (`resent: false`). Racing resends, on any instance, start one series.',
  example: { body: { id: '42' }, answer: { version: 1, status: 'success', data: { id: '42', state: 'pending', resent: true } } },
  body: callbackResendRequestSchema,
  answer: callbackResendResponseSchema,
  errors: ['invalid_request', 'not_found'],
  handler: ({ services, body, caller }) => services.callbackOps.resend(caller.appId, body.id, caller.signedAt),
});

export const recoverCallbacks = defineRoute({
  ...ops,
  method: 'post',
  path: '/callbacks/recover',
  summary: 'Resend every given-up callback of a merchant (and its sub-merchants) created in a window; answers how many',
  example: {
    body: { merchantId: 'PM3hT6vQ9cXe', since: '2026-01-30T00:00:00Z', until: '2026-01-31T00:00:00Z' },
    answer: { version: 1, status: 'success', data: { resent: 3 } },
  },
  body: callbackRecoverRequestSchema,
  answer: callbackRecoverResponseSchema,
  errors: ['invalid_request', 'not_found'],
  handler: ({ services, body, caller }) => services.callbackOps.recover(caller.appId, body),
});
