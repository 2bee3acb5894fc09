/** Under /merchant. 4.16 login (unsigned, password over a secure connection), 4.17 create (signed), 4.7 payment parameters (signed, owner only). */
import {
  PAY_VERSION,
  createMerchantRequestSchema,
  createMerchantResponseSchema,
  loginRequestSchema,
  loginResponseSchema,
  paySuccessSchema,
  setPaymentParamsRequestSchemaFor,
  type WalletCatalogue,
} from '@kit/shared';
import { defineRoute } from './route';

export const merchantLogin = defineRoute({
  method: 'post',
  path: '/merchant/login',
  tag: 'Merchants',
  section: '4.16',
  summary: 'Log in as a merchant or sub-merchant',
  description: 'Not signed: authenticated by the password, accepted only over a secure connection (TLS, or `X-Forwarded-Proto: https` from a trusted proxy).',
  example: {
    body: { userId: 'SM8dJ2kq0Lw1', pw: 'correct horse battery' },
    answer: {
      version: 1,
      status: 'success',
      displayName: 'Corner Shop',
      userId: 'SM8dJ2kq0Lw1',
      loginToken: 'lt_4kM0c2Qe8sWd1yP7',
      parentMerchantId: 'PM3hT6vQ9cXe',
    },
  },
  auth: 'none',
  secureConnection: true,
  body: loginRequestSchema,
  answer: loginResponseSchema,
  errors: ['login_failed', 'secure_connection_required', 'merchant_disabled'],
  handler: ({ services, body, caller }) => services.merchants.login(body.userId, body.pw, { address: caller.ip }),
});

export const createMerchant = defineRoute({
  method: 'post',
  path: '/merchant',
  tag: 'Merchants',
  section: '4.17',
  summary: 'Create a parent merchant or a sub-merchant',
  description: '`parameters.appId` becomes the owner and may differ from the signing app.',
  example: {
    body: {
      type: 'subMerchant',
      parameters: { displayName: 'Corner Shop', pw: 'correct horse battery', appId: 'app_demo', parentMerchantId: 'PM3hT6vQ9cXe' },
    },
    answer: { version: 1, status: 'success', data: { id: 'SM8dJ2kq0Lw1' } },
  },
  auth: 'signed',
  body: createMerchantRequestSchema,
  answer: createMerchantResponseSchema,
  errors: ['unknown_app', 'unknown_merchant', 'not_owner'],
  handler: async ({ services, body, caller }) => {
    const { id } = await services.merchants.create(caller.appId, body);
    return { version: PAY_VERSION, status: 'success' as const, data: { id } };
  },
});

/**
 * 4.7 for a service whose wallets are `wallets` (`services.wallets`: the kit's, and any its root was
 * given): the channels it takes and their parameters are theirs.
 */
export function setPaymentParamsOf(wallets: WalletCatalogue) {
  return defineRoute({
    method: 'put',
    path: '/merchant/paymentParams',
    tag: 'Merchants',
    section: '4.7',
    summary: "Set a merchant's payment parameters for one channel",
    description:
      "Signed by the app that owns the merchant (otherwise 401). A merge: fields sent are set, `null` clears a field, fields not sent stay. A sub-merchant inherits its parent's values field by field.",
    example: {
      body: {
        id: 'PM3hT6vQ9cXe',
        paymentChannel: 'SocialNative',
        parameters: { socialAppId: 'wx5andb0xdemo0001', socialMchId: '1900000001', notifyCallbackUrl: 'https://merchant.example/kit-callback' },
      },
      answer: { version: 1, status: 'success' },
    },
    auth: 'signed',
    body: setPaymentParamsRequestSchemaFor(wallets.channels, (c) => wallets.parametersOf(c)),
    answer: paySuccessSchema,
    errors: ['not_owner', 'unknown_merchant', 'profit_sharing_not_enabled'],
    handler: async ({ services, body, caller }) => {
      await services.merchants.setPaymentParams(caller.appId, body.id, body.paymentChannel, body.parameters);
      return { version: PAY_VERSION, status: 'success' as const };
    },
  });
}
