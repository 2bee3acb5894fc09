/** Section 4.8: profit sharing for contracted merchants. */
import { z } from 'zod';
import {
  addReceiverRequestSchema,
  finishSharingRequestSchema,
  paySuccessSchema,
  removeReceiverRequestSchema,
  sharingAmountsResponseSchema,
  splitAcceptedResponseSchema,
  splitDetailResponseSchema,
  splitRequestSchema,
} from '@kit/shared';
import type { RouteDoc } from '../describe';

const sharing = (doc: Omit<RouteDoc, 'tag' | 'auth' | 'section'>): RouteDoc => ({ tag: 'Profit sharing', auth: 'signed', section: '4.8', ...doc });
const ORDER_ERRORS = ['not_found', 'not_owner', 'profit_sharing_not_enabled', 'order_not_paid', 'order_already_refunded'] as const;

export const profitSharingRoutes: RouteDoc[] = [
  sharing({
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
  }),
  sharing({
    method: 'post',
    path: '/submerchant-pay/profitSharing/receivers/remove',
    summary: 'Remove a receiver (idempotent); the channel closes shares to it that are still pending',
    body: removeReceiverRequestSchema,
    answer: paySuccessSchema,
    errors: ['invalid_request', 'unknown_merchant', 'not_owner', 'profit_sharing_not_enabled', 'channel_error', 'channel_unavailable'],
  }),
  sharing({
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
  }),
  sharing({
    method: 'get',
    path: '/submerchant-pay/profitSharing/orders/:outOrderNo',
    summary: "A split (or finish): its state and each receiver's result",
    params: z.object({ outOrderNo: z.string() }),
    query: z.object({ prepayId: z.string() }),
    answer: splitDetailResponseSchema,
    errors: ['not_found', 'not_owner', 'profit_sharing_not_enabled', 'invalid_request'],
  }),
  sharing({
    method: 'post',
    path: '/submerchant-pay/profitSharing/finish',
    summary: "End an order's sharing: what was not shared is released to the merchant",
    body: finishSharingRequestSchema,
    answer: splitAcceptedResponseSchema,
    errors: [
      ...ORDER_ERRORS,
      'invalid_request',
      'profit_sharing_order_conflict',
      'profit_sharing_finished',
      'profit_sharing_refund_requested',
      'channel_error',
    ],
  }),
  sharing({
    method: 'get',
    path: '/submerchant-pay/profitSharing/amounts/:prepayId',
    summary: 'What an order may share (30 %), has shared, and whether the rest was released',
    params: z.object({ prepayId: z.string() }),
    answer: sharingAmountsResponseSchema,
    errors: ORDER_ERRORS,
  }),
];
