/** Under /donation. 4.9 project, 4.10 donation (both encrypted onto the ledger), 4.11 on-chain ids. */
import { donationLookupSchema, donationOnChainIdsAnswerSchema, donationPendingResponseSchema, donationProjectSchema, donationSchema } from '@kit/shared';
import { defineRoute } from './route';

export const donationProject = defineRoute({
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
  handler: ({ services, body, caller }) => services.chain.donations.submit(caller.appId, 'project', body),
});

export const donate = defineRoute({
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
  handler: ({ services, body, caller }) => services.chain.donations.submit(caller.appId, 'donate', body),
});

export const donationOnChainIds = defineRoute({
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
  handler: ({ services, body, caller }) => services.chain.donations.onChainIds(caller.appId, body.type, body.originalIds),
});
