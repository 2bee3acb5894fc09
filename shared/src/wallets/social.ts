/**
 * The social app's wallet: its ways (4.3 scan code, 4.4 mini-program, 4.5 app), their wire shapes,
 * its payment parameters (4.7's `SocialNative`, and the card acquirer's `SocialCardNetworkBizSmall`
 * whose payers pay in the social app's mini-program) and its ways' words; how it looks on screens is
 * `looks/social.ts`.
 */
import { z } from 'zod';
import { callbackUrlSchema, channelParameters, paramField } from './parameters';
import { defineWallet, defineWay } from './way';
import { socialLooks } from './looks/social';

/** The payer's open id as the social platform issues it (letters, digits, `-` and `_`). */
export const openIdSchema = z.string().regex(/^[0-9A-Za-z_-]{1,128}$/, 'must be an open id (letters, digits, "-" and "_")');

/**
 * 4.3 `args`: the channel's unified-order answer. Only `code_url` is kept in future versions, so it
 * is the one field a client may insist on; the others are optional for that reason.
 */
export const nativePayArgsSchema = z.object({
  return_code: z.string().optional(),
  return_msg: z.string().optional(),
  appid: z.string().optional(),
  mch_id: z.string().optional(),
  nonce_str: z.string().optional(),
  sign: z.string().optional(),
  result_code: z.string().optional(),
  prepay_id: z.string().optional(),
  trade_type: z.string().optional(),
  /** The QR content. */
  code_url: z.string().min(1),
});
export type NativePayArgs = z.infer<typeof nativePayArgsSchema>;

/** 4.4 `args`: exactly what the mini-program payment call takes. */
export const miniProgramPayArgsSchema = z.object({
  timeStamp: z.number(),
  nonceStr: z.string(),
  /** `prepay_id=<channel prepay id>` */
  package: z.string(),
  /** `RSA` on API v3 (the merchant key signs `appId\ntimeStamp\nnonceStr\npackage\n`); `MD5` or `HMAC-SHA256` on protocol v2. */
  signType: z.enum(['RSA', 'MD5', 'HMAC-SHA256']),
  paySign: z.string(),
});
export type MiniProgramPayArgs = z.infer<typeof miniProgramPayArgsSchema>;

/** 4.5 `args`: the app payment call's arguments. */
export const appPayArgsSchema = z.object({
  appid: z.string(),
  partnerid: z.string(),
  prepayid: z.string(),
  package: z.literal('Sign=WXPay'),
  noncestr: z.string(),
  timestamp: z.string(),
  sign: z.string(),
});
export type AppPayArgs = z.infer<typeof appPayArgsSchema>;

export const socialPayNative = defineWay({
  name: 'socialPayNative',
  section: '4.3',
  flow: 'scan',
  chosenBy: 'parameters',
  input: {},
  args: nativePayArgsSchema,
  payer: () => ({}),
  payerStep: 'scanCode',
  example: { input: {}, args: { code_url: 'weixin://wxpay/bizpayurl?pr=8mZQk2Lzz' } },
  words: {
    en: { summary: 'Scan-code payment arguments (render `args.code_url` as a QR code)' },
    'zh-CN': { summary: '扫码支付参数（将 `args.code_url` 画成二维码）' },
  },
});

export const socialPay = defineWay({
  name: 'socialPay',
  section: '4.4',
  flow: 'miniProgram',
  chosenBy: 'parameters',
  input: { openId: openIdSchema },
  args: miniProgramPayArgsSchema,
  payer: (i) => ({ openId: i.openId }),
  payerStep: 'miniProgramCall',
  // The kit's mini-program: `/mp/api/pay` with the login code of `wx.login`.
  page: { input: (p) => ({ openId: p.openId ?? '' }) },
  example: {
    input: { openId: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' },
    args: {
      timeStamp: 1735689600,
      nonceStr: '5K8264ILTKCH16CQ2502SI8ZNMTM67VS',
      package: 'prepay_id=wx201410272009395522657a690389285100',
      signType: 'RSA',
      paySign: 'oR9d8PuhnIc+YZ8cBHFCwfgpaK9gd7vaRvkYD7rthRAZ…',
    },
  },
  words: {
    en: {
      summary: 'Mini-program payment arguments for a payer open id',
      description: 'Call from the merchant backend, which obtained the open id; pass `args` unchanged to the mini-program payment call.',
    },
    'zh-CN': { summary: '付款人 open id 的小程序支付参数', description: '由取得 open id 的商户后端调用；将 `args` 原样传给小程序的支付调用。' },
  },
});

export const socialPayApp = defineWay({
  name: 'socialPayApp',
  section: '4.5',
  flow: 'app',
  chosenBy: 'parameters',
  input: { enableProfitSharing: z.boolean().optional() },
  args: appPayArgsSchema,
  payer: (i) => ({ enableProfitSharing: i.enableProfitSharing ?? false }),
  payerStep: 'appSdk',
  example: {
    input: {},
    args: {
      appid: 'wx8888888888888888',
      partnerid: '1900000109',
      prepayid: 'WX1217752501201407033233368018',
      package: 'Sign=WXPay',
      noncestr: '5K8264ILTKCH16CQ2502SI8ZNMTM67VS',
      timestamp: '1735689600',
      sign: 'oR9d8PuhnIc+YZ8cBHFCwfgpaK9gd7vaRvkYD7rthRAZ…',
    },
  },
  words: { en: { summary: 'App payment arguments' }, 'zh-CN': { summary: 'App 支付参数' } },
  errors: ['profit_sharing_not_enabled'],
});

export const socialWallet = defineWallet(socialLooks, {
  parameters: {
    SocialNative: channelParameters({ profitSharing: z.boolean(), socialAppId: paramField(), socialMchId: paramField(), notifyCallbackUrl: callbackUrlSchema }),
    SocialCardNetworkBizSmall: channelParameters({ cardNetworkBizMchId: paramField(), terminalId: paramField(), notifyCallbackUrl: callbackUrlSchema }),
  },
  paymentCode: { pattern: /^1[0-5]\d{16}$/, channel: 'SocialNative', digits: '18 digits starting 10–15' },
  ways: [socialPayNative, socialPay, socialPayApp],
});
