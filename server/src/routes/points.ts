/** Under /fungible-token. 4.12 balance and 4.13 deduction code; every parameter is a query field. */
import { balanceQuerySchema, balanceResponseSchema, deductionCodeQuerySchema, deductionCodeResponseSchema } from '@kit/shared';
import { defineRoute } from './route';

export const pointsBalance = defineRoute({
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
  // The signature's own fields share the query: they are dropped here.
  query: balanceQuerySchema.strip(),
  answer: balanceResponseSchema,
  errors: ['invalid_request', 'point_type_not_found', 'not_user_app'],
  handler: ({ services, query, caller }) => services.chain.points.balance(caller.appId, query),
});

export const deductionCode = defineRoute({
  method: 'get',
  path: '/fungible-token/chainPay',
  tag: 'Trusted points',
  section: '4.13',
  summary: 'A deduction code (QR content) for a user and a point type, valid 20 s',
  auth: 'signed',
  query: deductionCodeQuerySchema.strip(),
  answer: deductionCodeResponseSchema,
  errors: ['invalid_request', 'invalid_amount', 'point_type_not_found', 'not_user_app', 'uuid_spent'],
  handler: ({ services, query, caller }) => services.chain.points.deductionCode(caller.appId, query),
});
