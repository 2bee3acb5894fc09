/** Section 4.9–4.15: donations, trusted points and the generic chain upload. */
import { z } from 'zod';
import {
  balanceQuerySchema,
  balanceResponseSchema,
  chainIdSchema,
  deductionCodeQuerySchema,
  deductionCodeResponseSchema,
  donationLookupSchema,
  donationOnChainIdsAnswerSchema,
  donationPendingResponseSchema,
  donationProjectSchema,
  donationSchema,
  CHAIN_VERSION,
  lookupItemSchema,
  proofAnswerSchema,
  uploadItemSchema,
  uploadResponseSchema,
} from '@kit/shared';
import type { RouteDoc } from '../describe';

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

export const chainRoutes: RouteDoc[] = [
  {
    method: 'post',
    path: '/donation/project',
    tag: 'Donations',
    section: '4.9',
    summary: 'Upload a donation project (encrypted, queued for the chain)',
    example: {
      body: { id: 'proj-1', title: 'Clean water', founder: 'Water Trust', targetAmount: ['1000.00 RMB', '50000.00 RMB'] },
      answer: { version: '1', status: 'pending' },
    },
    auth: 'signed',
    body: donationProjectSchema,
    answer: donationPendingResponseSchema,
    errors: ['invalid_request', 'id_conflict'],
  },
  {
    method: 'post',
    path: '/donation/donate',
    tag: 'Donations',
    section: '4.10',
    summary: 'Upload a donation (encrypted, queued for the chain)',
    example: { body: { id: 'don-1', projectId_biz: 'proj-1', donatorId: 'u-42', amount: '10.00 RMB' }, answer: { version: '1', status: 'pending' } },
    auth: 'signed',
    body: donationSchema,
    answer: donationPendingResponseSchema,
    errors: ['invalid_request', 'project_not_found', 'id_conflict'],
  },
  {
    method: 'post',
    path: '/donation/fetchOnChainIds',
    tag: 'Donations',
    section: '4.11',
    summary: 'On-chain ids of donation projects or donations (at most 20)',
    example: {
      body: { type: 'project', originalIds: ['proj-1'] },
      answer: { version: '1', status: 'success', ids: { 'proj-1': '9b2f6c0e4d1a7f3b8c5e2d9a6f1b4c7e0d3a8f5b2c9e6d1a4f7b0c3e8d5a2f6c' } },
    },
    auth: 'signed',
    body: donationLookupSchema,
    answer: donationOnChainIdsAnswerSchema,
    errors: ['invalid_request', 'too_many_items'],
  },
  {
    method: 'get',
    path: '/fungible-token/balance',
    tag: 'Trusted points',
    section: '4.12',
    summary: 'Balance of a point type for a user',
    example: {
      answer: {
        version: '1',
        status: 'success',
        data: { balance: '100.00000', tokenId: 'PTS', tokenAppId: 'app_demo', userAppId: 'app_demo', userId: 'alice' },
      },
    },
    auth: 'signed',
    query: balanceQuerySchema.strip(),
    answer: balanceResponseSchema,
    errors: ['invalid_request', 'point_type_not_found', 'not_user_app'],
  },
  {
    method: 'get',
    path: '/fungible-token/chainPay',
    tag: 'Trusted points',
    section: '4.13',
    summary: 'A deduction code (QR content) for a user and a point type, valid 20 s',
    auth: 'signed',
    query: deductionCodeQuerySchema.strip(),
    answer: deductionCodeResponseSchema,
    errors: ['invalid_request', 'invalid_amount', 'point_type_not_found', 'not_user_app', 'uuid_spent'],
  },
  {
    method: 'post',
    path: '/common-chain-upload/',
    tag: 'Chain',
    section: '4.14',
    summary: 'Upload up to 50 typed items for the chain',
    description:
      "Action types: record, donation.project, donation.donate, points.create, points.issue, points.transfer, chainPay. `args.id` is the caller's de-duplication key.",
    example: { body: { items: [{ type: 'record', args: { id: 'order-1001', total: '12.34' } }] }, answer: { version: '1', status: 'pending' } },
    auth: 'signed',
    body: uploadBody,
    answer: uploadResponseSchema,
    errors: CHAIN_ERRORS,
  },
  {
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
    body: lookupBody,
    answer: lookupAnswer,
    errors: ['invalid_request', 'too_many_items'],
  },
  {
    method: 'get',
    path: '/common-chain-upload/proof/:id',
    tag: 'Chain',
    summary: "Inclusion proof of one of the caller's items by on-chain id (verify it with `verifyChainProof`, and its anchor with `verifyAnchoredProof`)",
    auth: 'signed',
    params: z.object({ id: chainIdSchema }),
    answer: proofAnswerSchema,
    errors: ['not_found'],
  },
];
