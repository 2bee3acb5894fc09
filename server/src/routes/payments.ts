/**
 * Under /submerchant-pay beside the prepay routes. 4.3 scan-code, 4.4 mini-program and 4.5 app
 * payment arguments (signed: the order's creating app or the owner of its sub-merchant or parent),
 * 4.6 refund (signed, plus the login token of the sub-merchant or its parent).
 */
import {
  alipayAppRequestSchema,
  alipayAppResponseSchema,
  alipayMiniRequestSchema,
  alipayMiniResponseSchema,
  alipayNativeRequestSchema,
  alipayNativeResponseSchema,
  alipayWapRequestSchema,
  alipayWapResponseSchema,
  appPayResponseSchema,
  type AlipayAppArgs,
  type AlipayMiniArgs,
  type AlipayNativeArgs,
  type AlipayWapArgs,
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

/** What every Alipay endpoint's description says of its order. */
const ALIPAY_ORDER =
  "The order is placed for the sub-merchant's authorization (payment parameters of channel `Alipay`, 4.7, inherited from the parent), " +
  "with `out_trade_no` (letters and digits), `total_amount` in yuan, `subject` the merchant's display name and an expiry no later than the order's; " +
  'its notifications come to `/pay-notify/alipay`. One payable order at Alipay per prepay order: asking through another endpoint (or for another payer) closes the previous one first. ' +
  "When Alipay refuses, the answer is not `success` and `msg` carries Alipay's `sub_code` and `sub_msg`.";

export const alipayMini = defineRoute({
  method: 'post',
  path: '/submerchant-pay/alipayMini',
  tag: 'Payments',
  section: '6.3',
  summary: "Alipay mini-program payment for a payer's open id (the mini-program pays `args.tradeNO` with `my.tradePay`)",
  description:
    "Call from the merchant backend, which obtained the payer's open id (`alipay.system.oauth.token` of the mini-program's `my.getAuthCode` code; the kit's own mini-program does this through `/mp/api/alipay/pay`). " +
    'The trade is made with `alipay.trade.create` (`product_code` JSAPI_PAY, `op_app_id` ALIPAY_MINI_APP_ID, `buyer_open_id`); asked again for the same payer, the same `tradeNO`. ' +
    ALIPAY_ORDER,
  example: {
    body: { prepayId: 'Qx81Fk2LmZ0a', buyerOpenId: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5' },
    answer: { version: 1, status: 'success', args: { tradeNO: '2025010122001412345678901234' } },
  },
  auth: 'signed',
  body: alipayMiniRequestSchema,
  answer: alipayMiniResponseSchema,
  errors: PAYMENT_ERRORS,
  handler: ({ services, body, caller }) =>
    services.payments.args.walletVia<AlipayMiniArgs>(caller.appId, body.prepayId, 'Alipay', 'walletMini', { openId: body.buyerOpenId }),
});

export const alipayApp = defineRoute({
  method: 'post',
  path: '/submerchant-pay/alipayApp',
  tag: 'Payments',
  section: '6.3',
  summary: 'Alipay app payment (give `args.orderStr` to the Alipay app SDK as it is)',
  description:
    'The signed `alipay.trade.app.pay` order string (`product_code` QUICK_MSECURITY_PAY), made by the kit without a call to Alipay and signed afresh at each request (its `timestamp` is China time now): ' +
    'Alipay makes the trade when the app pays it. ' +
    ALIPAY_ORDER,
  example: {
    body: { prepayId: 'Qx81Fk2LmZ0a' },
    answer: {
      version: 1,
      status: 'success',
      args: {
        orderStr:
          'app_id=2021000122671080&method=alipay.trade.app.pay&format=JSON&charset=utf-8&sign_type=RSA2&timestamp=…&version=1.0&app_auth_token=…&notify_url=…&biz_content=…&sign=…',
      },
    },
  },
  auth: 'signed',
  body: alipayAppRequestSchema,
  answer: alipayAppResponseSchema,
  errors: PAYMENT_ERRORS,
  handler: ({ services, body, caller }) => services.payments.args.walletVia<AlipayAppArgs>(caller.appId, body.prepayId, 'Alipay', 'app'),
});

export const alipayWap = defineRoute({
  method: 'post',
  path: '/submerchant-pay/alipayWap',
  tag: 'Payments',
  section: '6.3',
  summary: "Alipay payment page for Alipay's browser (open `args.url`)",
  description:
    "The signed `alipay.trade.wap.pay` URL (a GET on Alipay's gateway, `product_code` QUICK_WAP_WAY), made by the kit without a call to Alipay and signed afresh at each request. " +
    'With `returnUrl`, Alipay sends the payer back there after paying (`return_url`) and when the payer leaves the page (`quit_url`); the payment itself is known from the notification, never from the return. ' +
    ALIPAY_ORDER,
  example: {
    body: { prepayId: 'Qx81Fk2LmZ0a', returnUrl: 'https://shop.example.com/paid' },
    answer: {
      version: 1,
      status: 'success',
      args: { url: 'https://openapi.alipay.com/gateway.do?app_id=2021000122671080&method=alipay.trade.wap.pay&…&sign=…' },
    },
  },
  auth: 'signed',
  body: alipayWapRequestSchema,
  answer: alipayWapResponseSchema,
  errors: PAYMENT_ERRORS,
  handler: ({ services, body, caller }) =>
    services.payments.args.walletVia<AlipayWapArgs>(caller.appId, body.prepayId, 'Alipay', 'wap', { returnUrl: body.returnUrl }),
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
