/**
 * Alipay's wallet (design 6.3): Alipay's open platform as a service provider's app acting for
 * merchants (`app_auth_token`). Its ways (a code, its mini-program, an app, a page in its browser),
 * their wire shapes, its payment parameters (channel `Alipay`) and its ways' words; how it looks on
 * screens is `looks/alipay.ts`.
 */
import { z } from 'zod';
import { callbackUrlSchema, channelParameters, paramField } from './parameters';
import { defineWallet, defineWay } from './way';
import { alipayLooks } from './looks/alipay';

/** The payer's open id as Alipay issues it to the mini-program (`open_id`, or the older 16-digit `user_id`). */
export const alipayOpenIdSchema = z.string().regex(/^[0-9A-Za-z_-]{1,128}$/, 'must be an Alipay open id (letters, digits, "-" and "_")');

/** Where a payment page sends the payer back: an http(s) URL. */
export const returnUrlSchema = z
  .string()
  .max(1024, 'must be at most 1024 characters')
  .url('must be an http(s) URL')
  .regex(/^https?:\/\//i, 'must be an http(s) URL');

/** `alipayNative` `args`: the code payers scan with Alipay (`alipay.trade.precreate`'s answer). */
export const alipayNativeArgsSchema = z.object({ qr_code: z.string().min(1) });
export type AlipayNativeArgs = z.infer<typeof alipayNativeArgsSchema>;
/** `alipayMini` `args`: the trade the mini-program pays with `my.tradePay({tradeNO})` (`alipay.trade.create`'s `trade_no`). */
export const alipayMiniArgsSchema = z.object({ tradeNO: z.string().min(1) });
export type AlipayMiniArgs = z.infer<typeof alipayMiniArgsSchema>;
/** `alipayApp` `args`: the signed `alipay.trade.app.pay` order string the Alipay app SDK takes as it is. */
export const alipayAppArgsSchema = z.object({ orderStr: z.string().min(1) });
export type AlipayAppArgs = z.infer<typeof alipayAppArgsSchema>;
/** `alipayWap` `args`: the signed `alipay.trade.wap.pay` URL to open in Alipay's browser (a GET on Alipay's gateway). */
export const alipayWapArgsSchema = z.object({ url: z.string().min(1) });
export type AlipayWapArgs = z.infer<typeof alipayWapArgsSchema>;

/** What every Alipay way's description says of its order. */
const ORDER = {
  en:
    "The order is placed for the sub-merchant's authorization (payment parameters of channel `Alipay`, 4.7, inherited from the parent), " +
    "with `out_trade_no` (letters and digits), `total_amount` in yuan, `subject` the merchant's display name and an expiry no later than the order's; " +
    'its notifications come to `/pay-notify/alipay`. One payable order at Alipay per prepay order: asking through another way (or for another payer) closes the previous one first. ' +
    "When Alipay refuses, the answer is not `success` and `msg` carries Alipay's `sub_code` and `sub_msg`.",
  'zh-CN':
    '以子商户的支付宝授权（渠道 `Alipay` 的支付参数，4.7，可继承父商户）下单；通知发到 `/pay-notify/alipay`。每个预支付订单在支付宝只有一笔可付订单：换一种方式（或换付款人）会先关闭上一笔。支付宝拒绝时，`msg` 带其 `sub_code` 与 `sub_msg`。',
};

export const alipayNative = defineWay({
  name: 'alipayNative',
  section: '6.3',
  flow: 'scan',
  chosenBy: 'wallet',
  input: {},
  args: alipayNativeArgsSchema,
  payer: () => ({}),
  payerStep: 'scanCode',
  example: { input: {}, args: { qr_code: 'https://qr.alipay.com/bax08431qzvgm0zwlnqj0076' } },
  words: {
    en: {
      summary: 'Alipay scan-code payment arguments (render `args.qr_code` as a QR code)',
      description: `The trade is precreated with \`alipay.trade.precreate\`. ${ORDER.en}`,
    },
    'zh-CN': { summary: '支付宝扫码支付参数（将 `args.qr_code` 画成二维码）', description: `以 \`alipay.trade.precreate\` 预下单。${ORDER['zh-CN']}` },
  },
});

export const alipayMini = defineWay({
  name: 'alipayMini',
  section: '6.3',
  flow: 'walletMini',
  chosenBy: 'wallet',
  input: { buyerOpenId: alipayOpenIdSchema },
  args: alipayMiniArgsSchema,
  payer: (i) => ({ openId: i.buyerOpenId }),
  payerStep: 'miniProgramCall',
  // The kit's mini-program built for Alipay: `/mp/api/pay` with the code of `my.getAuthCode` (before it, `/mp/api/alipay/pay {authCode}`).
  page: { input: (p) => ({ buyerOpenId: p.openId ?? '' }), alias: { path: '/alipay/pay', codeField: 'authCode' } },
  example: { input: { buyerOpenId: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5' }, args: { tradeNO: '2025010122001412345678901234' } },
  words: {
    en: {
      summary: "Alipay mini-program payment for a payer's open id (the mini-program pays `args.tradeNO` with `my.tradePay`)",
      description:
        "Call from the merchant backend, which obtained the payer's open id (`alipay.system.oauth.token` of the mini-program's `my.getAuthCode` code; the kit's own mini-program does this through `/mp/api/pay`). " +
        'The trade is made with `alipay.trade.create` (`product_code` JSAPI_PAY, `op_app_id` ALIPAY_MINI_APP_ID, `buyer_open_id`); asked again for the same payer, the same `tradeNO`. ' +
        ORDER.en,
    },
    'zh-CN': {
      summary: '支付宝小程序支付参数（`my.tradePay` 的 `args.tradeNO`）',
      description: `以付款人在支付宝小程序中的 open id（\`buyerOpenId\`）向支付宝创建交易（\`alipay.trade.create\`）。${ORDER['zh-CN']}`,
    },
  },
});

export const alipayApp = defineWay({
  name: 'alipayApp',
  section: '6.3',
  flow: 'app',
  chosenBy: 'wallet',
  input: {},
  args: alipayAppArgsSchema,
  payer: () => ({}),
  payerStep: 'appSdk',
  example: {
    input: {},
    args: {
      orderStr:
        'app_id=2021000122671080&method=alipay.trade.app.pay&format=JSON&charset=utf-8&sign_type=RSA2&timestamp=…&version=1.0&app_auth_token=…&notify_url=…&biz_content=…&sign=…',
    },
  },
  words: {
    en: {
      summary: 'Alipay app payment (give `args.orderStr` to the Alipay app SDK as it is)',
      description:
        'The signed `alipay.trade.app.pay` order string (`product_code` QUICK_MSECURITY_PAY), made by the kit without a call to Alipay and signed afresh at each request (its `timestamp` is China time now): ' +
        'Alipay makes the trade when the app pays it. ' +
        ORDER.en,
    },
    'zh-CN': {
      summary: '支付宝 App 支付参数（`args.orderStr`，原样交给支付宝 App SDK）',
      description: `本服务签名的 \`alipay.trade.app.pay\` 订单串，不调用支付宝；付款人打开时支付宝才创建交易。${ORDER['zh-CN']}`,
    },
  },
});

export const alipayWap = defineWay({
  name: 'alipayWap',
  section: '6.3',
  flow: 'wap',
  chosenBy: 'wallet',
  input: { returnUrl: returnUrlSchema.optional() },
  args: alipayWapArgsSchema,
  payer: (i) => ({ returnUrl: i.returnUrl }),
  payerStep: 'openPage',
  // The payer page in Alipay's browser: `/mp/api/pay` with where to come back (before it, `/mp/api/alipay/wap`).
  page: { input: (p) => (p.returnUrl === undefined ? {} : { returnUrl: p.returnUrl }), alias: { path: '/alipay/wap' } },
  example: {
    input: { returnUrl: 'https://shop.example.com/paid' },
    args: { url: 'https://openapi.alipay.com/gateway.do?app_id=2021000122671080&method=alipay.trade.wap.pay&…&sign=…' },
  },
  words: {
    en: {
      summary: "Alipay payment page for Alipay's browser (open `args.url`)",
      description:
        "The signed `alipay.trade.wap.pay` URL (a GET on Alipay's gateway, `product_code` QUICK_WAP_WAY), made by the kit without a call to Alipay and signed afresh at each request. " +
        'With `returnUrl`, Alipay sends the payer back there after paying (`return_url`) and when the payer leaves the page (`quit_url`); the payment itself is known from the notification, never from the return. ' +
        ORDER.en,
    },
    'zh-CN': {
      summary: '支付宝手机网站支付地址（`args.url`）',
      description: `本服务签名的 \`alipay.trade.wap.pay\` 地址，在支付宝内的浏览器中打开；带 \`returnUrl\` 时，付款后（或离开支付页时）回到该地址。${ORDER['zh-CN']}`,
    },
  },
});

export const alipayWallet = defineWallet(alipayLooks, {
  parameters: {
    /**
     * 6.3: the merchant's third-party app authorization at Alipay. `appAuthToken` is write-only like
     * a password: 4.7 sets or clears it, nothing answers it back.
     */
    Alipay: channelParameters({ appAuthToken: paramField(128), notifyCallbackUrl: callbackUrlSchema }),
  },
  paymentCode: { pattern: /^(2[5-9]|30)\d{14,22}$/, channel: 'Alipay', digits: '16–24 digits starting 25–30' },
  ways: [alipayNative, alipayMini, alipayApp, alipayWap],
});
