/** Under /common-chain-upload. 4.14 batch upload, 4.15 on-chain id lookup, and the inclusion proof of an item. */
import { z } from 'zod';
import {
  CHAIN_VERSION,
  chainIdSchema,
  lookupItemSchema,
  lookupRequestSchema,
  proofAnswerSchema,
  uploadItemSchema,
  uploadRequestSchema,
  uploadResponseSchema,
} from '@kit/shared';
import { defineRoute } from './route';

/** The request schemas check the envelope first (so the count limit is the error reported); the document shows the items. */
const uploadBody = z.object({ items: z.array(uploadItemSchema).min(1).max(50) }).strict();
const lookupBody = z.object({ items: z.array(lookupItemSchema).min(1).max(500) }).strict();
/** The answer's three item shapes (`lookupResultSchema`), the empty one spelled so that OpenAPI can say it. */
const lookupAnswer = z.object({
  version: z.literal(CHAIN_VERSION),
  status: z.literal('success'),
  items: z.array(
    z.union([
      z.object({ id: z.string().min(1), chainTrxId: z.string(), chainBlockNum: z.string() }).openapi({ description: 'Confirmed' }),
      z.object({ id: z.literal('') }).openapi({ description: 'Accepted, not yet confirmed: ask again later' }),
      z.object({}).strict().openapi({ description: 'Failed, or no such id: resubmit' }),
    ]),
  ),
});

const CHAIN_ERRORS = [
  'invalid_request',
  'too_many_items',
  'item_too_large',
  'unknown_action_type',
  'invalid_action_args',
  'duplicate_item_id',
  'id_conflict',
] as const;

export const upload = defineRoute({
  method: 'post',
  path: '/common-chain-upload/',
  tag: 'Chain',
  section: '4.14',
  summary: 'Upload up to 50 typed items for the chain',
  description:
    "Action types: record, donation.project, donation.donate, points.create, points.issue, points.transfer, chainPay. `args.id` is the caller's de-duplication key.",
  example: { body: { items: [{ type: 'record', args: { id: 'order-1001', total: '12.34' } }] }, answer: { version: '1', status: 'pending' } },
  auth: 'signed',
  body: uploadRequestSchema,
  documented: { body: uploadBody },
  answer: uploadResponseSchema,
  errors: CHAIN_ERRORS,
  handler: async ({ services, body, caller }) => {
    await services.chain.ledger.accept(caller.appId, body.items);
    return { version: CHAIN_VERSION, status: 'pending' as const };
  },
});

export const lookup = defineRoute({
  method: 'post',
  path: '/common-chain-upload/fetchOnChainIds',
  tag: 'Chain',
  section: '4.15',
  summary: 'Look up uploaded items (at most 500): confirmed, pending (`{id: ""}`) or failed/unknown (`{}`)',
  example: {
    body: { items: [{ type: 'record', id: 'order-1001', queryType: 'i2c' }] },
    answer: {
      version: '1',
      status: 'success',
      items: [
        {
          id: '9b2f6c0e4d1a7f3b8c5e2d9a6f1b4c7e0d3a8f5b2c9e6d1a4f7b0c3e8d5a2f6c',
          chainTrxId: '9b2f6c0e4d1a7f3b8c5e2d9a6f1b4c7e0d3a8f5b2c9e6d1a4f7b0c3e8d5a2f6c',
          chainBlockNum: '42',
        },
      ],
    },
  },
  auth: 'signed',
  body: lookupRequestSchema,
  documented: { body: lookupBody },
  answer: lookupAnswer,
  errors: ['invalid_request', 'too_many_items'],
  handler: async ({ services, body, caller }) => ({
    version: CHAIN_VERSION,
    status: 'success' as const,
    items: await services.chain.ledger.lookup(caller.appId, body.items),
  }),
});

export const proof = defineRoute({
  method: 'get',
  path: '/common-chain-upload/proof/:id',
  tag: 'Chain',
  summary: "Inclusion proof of one of the caller's items by on-chain id (verify it with `verifyChainProof`, and its anchor with `verifyAnchoredProof`)",
  auth: 'signed',
  params: z.object({ id: chainIdSchema }),
  answer: proofAnswerSchema,
  errors: ['not_found'],
  handler: ({ services, params, caller }) => services.chain.ledger.proof(caller.appId, params.id),
});
