/**
 * Under /submerchant-pay beside the prepay routes. 4.3 scan-code, 4.4 mini-program and 4.5 app
 * payment arguments (signed: the order's creating app or the owner of its sub-merchant or parent),
 * 4.6 refund (signed, plus the login token of the sub-merchant or its parent).
 */
import {
  alipayNativeRequestSchema,
  alipayNativeResponseSchema,
  appPayResponseSchema,
  type AlipayNativeArgs,
  miniProgramPayResponseSchema,
  nativePayResponseSchema,
  refundQuerySchema,
  refundRequestSchema,
  refundResponseSchema,
  socialPayAppRequestSchema,
  socialPayNativeRequestSchema,
  socialPayRequestSchema,
} from '@kit/shared';
import { defineRoute } from './route';

const PAYMENT_ERRORS = [
  'invalid_request',
  'not_owner',
  'order_not_active',
  'payment_params_missing',
  'merchant_disabled',
  'channel_error',
  'channel_unavailable',
] as const;

export const socialPayNative = defineRoute({
  method: 'post',
  path: '/submerchant-pay/socialPayNative',
  tag: 'Payments',
  section: '4.3',
  summary: 'Scan-code payment arguments (render `args.code_url` as a QR code)',
  auth: 'signed',
  body: socialPayNativeRequestSchema,
  answer: nativePayResponseSchema,
  errors: PAYMENT_ERRORS,
  handler: ({ services, body, caller }) => services.payments.args.native(caller.appId, body.prepayId),
});

export const socialPay = defineRoute({
  method: 'post',
  path: '/submerchant-pay/socialPay',
  tag: 'Payments',
  section: '4.4',
  summary: 'Mini-program payment arguments for a payer open id',
  description: 'Call from the merchant backend, which obtained the open id; pass `args` unchanged to the mini-program payment call.',
  auth: 'signed',
  body: socialPayRequestSchema,
  answer: miniProgramPayResponseSchema,
  errors: PAYMENT_ERRORS,
  handler: ({ services, body, caller }) => services.payments.args.miniProgram(caller.appId, body.prepayId, body.openId),
});

export const socialPayApp = defineRoute({
  method: 'post',
  path: '/submerchant-pay/socialPayApp',
  tag: 'Payments',
  section: '4.5',
  summary: 'App payment arguments',
  auth: 'signed',
  body: socialPayAppRequestSchema,
  answer: appPayResponseSchema,
  errors: [...PAYMENT_ERRORS, 'profit_sharing_not_enabled'],
  handler: ({ services, body, caller }) => services.payments.args.app(caller.appId, body.prepayId, body.enableProfitSharing ?? false),
});

export const alipayNative = defineRoute({
  method: 'post',
  path: '/submerchant-pay/alipayNative',
  tag: 'Payments',
  section: '6.3',
  summary: 'Alipay scan-code payment arguments (render `args.qr_code` as a QR code)',
  description:
    "The order is placed at Alipay for the sub-merchant's authorization (payment parameters of channel `Alipay`, 4.7, inherited from the parent). " +
    "When Alipay refuses, the answer is not `success` and `msg` carries Alipay's `sub_code` and `sub_msg`.",
  example: {
    body: { prepayId: 'Qx81Fk2LmZ0a' },
    answer: { version: 1, status: 'success', args: { qr_code: 'https://qr.alipay.com/bax08431qzvgm0zwlnqj0076' } },
  },
  auth: 'signed',
  body: alipayNativeRequestSchema,
  answer: alipayNativeResponseSchema,
  errors: PAYMENT_ERRORS,
  handler: ({ services, body, caller }) => services.payments.args.nativeVia<AlipayNativeArgs>(caller.appId, body.prepayId, 'Alipay'),
});

export const refundOrder = defineRoute({
  method: 'post',
  path: '/submerchant-pay/refund',
  tag: 'Payments',
  section: '4.6',
  summary: 'Refund a paid order in full',
  description:
    "Needs the login token of the order's sub-merchant or of its parent (4.16) besides the signature; without one, 401. Success means accepted; the order becomes `refunded` and a `refunded` callback is sent when the channel completes it. " +
    'When the channel cannot be reached (503) the refund stays requested and the service completes it on its own.',
  example: { body: { id: 'Qx81Fk2LmZ0a' }, answer: { version: 1, status: 'success' } },
  auth: 'signed',
  // The signature's own fields share the query: only `loginToken` is read.
  query: refundQuerySchema.strip(),
  body: refundRequestSchema,
  answer: refundResponseSchema,
  errors: ['login_invalid', 'not_owner', 'not_found', 'order_not_paid', 'order_already_refunded', 'refund_in_progress', 'channel_error', 'channel_unavailable'],
  handler: ({ services, query, body, caller }) => services.payments.refunds.request(caller.appId, query.loginToken, body.id),
});
