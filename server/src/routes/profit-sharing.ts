/** Under /submerchant-pay/profitSharing (4.8): receivers, splits, their results, finish and amounts. Signed, by the owner app. */
import { z } from 'zod';
import {
  addReceiverRequestSchema,
  finishSharingRequestSchema,
  outOrderNoSchema,
  paySuccessSchema,
  prepayIdSchema,
  removeReceiverRequestSchema,
  sharingAmountsResponseSchema,
  splitAcceptedResponseSchema,
  splitDetailQuerySchema,
  splitDetailResponseSchema,
  splitRequestSchema,
} from '@kit/shared';
import { defineRoute } from './route';

const sharing = { tag: 'Profit sharing', auth: 'signed', section: '4.8' } as const;
const ORDER_ERRORS = ['not_found', 'not_owner', 'profit_sharing_not_enabled', 'order_not_paid', 'order_already_refunded'] as const;

export const addReceiver = defineRoute({
  ...sharing,
  method: 'post',
  path: '/submerchant-pay/profitSharing/receivers',
  summary: 'Add a receiver for the orders of a merchant and its sub-merchants (idempotent)',
  description:
    'Signed by the owner app of the merchant or of its parent; the merchant (or its parent) must be contracted for profit sharing. ' +
    '`customRelation` (at most 10 characters) is required with relation type `CUSTOM` and refused with any other, as the platform requires `custom_relation` with `CUSTOM`.',
  example: {
    body: { merchantId: 'PM3hT6vQ9cXe', type: 'MERCHANT_ID', account: '1900000501', name: 'Partner Trading Co', relationType: 'PARTNER' },
    answer: { version: 1, status: 'success' },
  },
  body: addReceiverRequestSchema,
  answer: paySuccessSchema,
  errors: ['invalid_request', 'unknown_merchant', 'not_owner', 'profit_sharing_not_enabled', 'channel_error', 'channel_unavailable'],
  handler: ({ services, body, caller }) => services.profitSharing.addReceiver(caller.appId, body),
});

export const removeReceiver = defineRoute({
  ...sharing,
  method: 'post',
  path: '/submerchant-pay/profitSharing/receivers/remove',
  summary: 'Remove a receiver (idempotent); the channel closes shares to it that are still pending',
  body: removeReceiverRequestSchema,
  answer: paySuccessSchema,
  errors: ['invalid_request', 'unknown_merchant', 'not_owner', 'profit_sharing_not_enabled', 'channel_error', 'channel_unavailable'],
  handler: ({ services, body, caller }) => services.profitSharing.removeReceiver(caller.appId, body),
});

export const split = defineRoute({
  ...sharing,
  method: 'post',
  path: '/submerchant-pay/profitSharing/orders',
  summary: 'Split a paid order among added receivers; accepted at once, results come later',
  description:
    'All splits of one order together may take at most 30 % of its amount, rounded down to the cent. The same `outOrderNo` again is the same split; ' +
    "a different split under it is refused. `finish: true` also ends the order's sharing.",
  example: {
    body: {
      prepayId: 'Qx81Fk2LmZ0a',
      outOrderNo: 'split-1',
      receivers: [{ type: 'MERCHANT_ID', account: '1900000501', amount: '2.00', description: 'partner share' }],
    },
    answer: { version: 1, status: 'success', data: { outOrderNo: 'split-1', state: 'processing' } },
  },
  body: splitRequestSchema,
  answer: splitAcceptedResponseSchema,
  errors: [
    ...ORDER_ERRORS,
    'invalid_request',
    'invalid_amount',
    'profit_sharing_receiver_unknown',
    'profit_sharing_limit_exceeded',
    'profit_sharing_order_conflict',
    'profit_sharing_finished',
    'profit_sharing_refund_requested',
    'channel_error',
  ],
  handler: ({ services, body, caller }) => services.profitSharing.split(caller.appId, body),
});

export const splitDetail = defineRoute({
  ...sharing,
  method: 'get',
  path: '/submerchant-pay/profitSharing/orders/:outOrderNo',
  summary: "A split (or finish): its state and each receiver's result",
  params: z.object({ outOrderNo: outOrderNoSchema }),
  // The signature's own fields share the query: only `prepayId` is read.
  query: splitDetailQuerySchema.strip(),
  answer: splitDetailResponseSchema,
  errors: ['not_found', 'not_owner', 'profit_sharing_not_enabled', 'invalid_request'],
  handler: ({ services, params, query, caller }) => services.profitSharing.detail(caller.appId, query.prepayId, params.outOrderNo),
});

export const finishSharing = defineRoute({
  ...sharing,
  method: 'post',
  path: '/submerchant-pay/profitSharing/finish',
  summary: "End an order's sharing: what was not shared is released to the merchant",
  body: finishSharingRequestSchema,
  answer: splitAcceptedResponseSchema,
  errors: [...ORDER_ERRORS, 'invalid_request', 'profit_sharing_order_conflict', 'profit_sharing_finished', 'profit_sharing_refund_requested', 'channel_error'],
  handler: ({ services, body, caller }) => services.profitSharing.finish(caller.appId, body),
});

export const sharingAmounts = defineRoute({
  ...sharing,
  method: 'get',
  path: '/submerchant-pay/profitSharing/amounts/:prepayId',
  summary: 'What an order may share (30 %), has shared, and whether the rest was released',
  params: z.object({ prepayId: prepayIdSchema }),
  answer: sharingAmountsResponseSchema,
  errors: ORDER_ERRORS,
  handler: ({ services, params, caller }) => services.profitSharing.amounts(caller.appId, params.prepayId),
});
