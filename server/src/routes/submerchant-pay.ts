/** Under /submerchant-pay. 4.1 create a prepay order and 4.2 its detail (optionally held until it leaves `active`). */
import { z } from 'zod';
import {
  KitError,
  createPrepayRequestSchema,
  createPrepayResponseSchema,
  failSchema,
  prepayDetailQuerySchema,
  prepayDetailSchema,
  prepayIdSchema,
} from '@kit/shared';
import { defineRoute } from './route';

/** `totalAmount` is checked by the money parser, so the request schema accepts anything there; the document says what it takes. */
const createPrepayBody = createPrepayRequestSchema.extend({
  totalAmount: z.string().openapi({ description: 'Decimal amount of the order, at most 2 decimals, above 0 and at most 1000000.00.', example: '12.34' }),
  extraInfo: z.unknown().optional().openapi({ description: 'Free information tied to the transaction (JSON recommended, at most 8 KB serialised).' }),
});

export const createPrepay = defineRoute({
  method: 'post',
  path: '/submerchant-pay/',
  tag: 'Payments',
  section: '4.1',
  summary: 'Create a prepay order',
  example: {
    body: { subMerchantId: 'SM8dJ2kq0Lw1', totalAmount: '12.34', orderId: null, extraInfo: { orderNo: 'A-1001' } },
    answer: { version: 1, status: 'success', prepayId: 'Qx81Fk2LmZ0a' },
  },
  auth: 'signed',
  // The replay guard's row is written with the order (one commit per creation).
  replayInService: true,
  body: createPrepayRequestSchema,
  documented: { body: createPrepayBody },
  answer: createPrepayResponseSchema,
  errors: ['invalid_request', 'invalid_json', 'invalid_amount', 'unknown_merchant', 'merchant_disabled', 'not_owner'],
  handler: ({ services, body, caller }) => services.prepay.create(caller.appId, body, caller.replay),
});

export const prepayDetail = defineRoute({
  method: 'get',
  path: '/submerchant-pay/prePay/:prepayId',
  tag: 'Payments',
  section: '4.2',
  summary: 'Read a prepay order, optionally held until it is paid',
  description:
    'With `waitForFinish=1` the answer is held until the order leaves `active` or the hold time (WAIT_FOR_FINISH_HOLD, at most 55 s) passes. ' +
    'Client loop: call with waitForFinish=1; stop when `status` is `finish`; on any other `active` answer, a network error or a non-200 answer, call again at once. ' +
    'An unknown, malformed or another app\'s id answers HTTP 200 with `status: "fail"` and `error: "not_found"` (neither active nor finish: the loop stops and tells the payer).',
  example: {
    answer: {
      version: 1,
      status: 'finish',
      merchantDisplayName: 'Corner Shop',
      totalAmount: '12.34',
      disconut: '0.00',
      createTime: '2025-01-01T08:00:00.000Z',
      paymentTime: '2025-01-01T08:00:21.345Z',
    },
  },
  auth: 'signed',
  // Any id reaches the handler: a malformed one is "not found", not a refused request.
  params: z.object({ prepayId: z.string() }),
  query: prepayDetailQuerySchema,
  answer: z.union([prepayDetailSchema, failSchema]),
  // The 4.2 client loop re-calls at once on any non-200, so a 404 would make it spin.
  failsWith200: ['not_found'],
  // Not an async function: a held call keeps one suspended frame, not two (the heap it saves: docs/performance.md).
  handler: ({ services, params, query, caller }) => {
    const id = prepayIdSchema.safeParse(params.prepayId);
    if (!id.success) throw new KitError('not_found', `prepay order "${params.prepayId.slice(0, 64)}" does not exist`);
    const wait = query.waitForFinish === '1';
    // A caller that hangs up ends its hold at once (only held calls need to know).
    return services.prepay.detail(caller.appId, id.data, { wait, signal: wait ? caller.hold() : undefined });
  },
});
