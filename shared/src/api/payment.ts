/**
 * Payment arguments (4.3–4.5), refund (4.6) and the payment-result callback (section 6): request
 * schemas, answer schemas (the typed client checks answers against them) and the callback body.
 */
import { z } from 'zod';
import { idString, merchantIdSchema, prepayIdSchema, PAY_VERSION, subMerchantIdSchema } from './common';

/** 4.3 body. */
export const socialPayNativeRequestSchema = z.object({ prepayId: prepayIdSchema }).strict();

/** The payer's open id as the social platform issues it (letters, digits, `-` and `_`). */
export const openIdSchema = z.string().regex(/^[0-9A-Za-z_-]{1,128}$/, 'must be an open id (letters, digits, "-" and "_")');

/** 4.4 body. The open id is obtained on the merchant backend (never by the mini-program). */
export const socialPayRequestSchema = z.object({ prepayId: prepayIdSchema, openId: openIdSchema }).strict();

/** 4.5 body. `enableProfitSharing` only takes effect for merchants contracted for profit sharing. */
export const socialPayAppRequestSchema = z.object({ prepayId: prepayIdSchema, enableProfitSharing: z.boolean().optional() }).strict();

/** 4.6 body (full refund of a paid order). */
export const refundRequestSchema = z.object({ id: prepayIdSchema }).strict();
/**
 * 4.6 query: the login token of the order's sub-merchant or of its parent merchant. A missing or
 * empty one is not a malformed request but an invalid login: 401 (specification 5.4 and 7).
 */
export const refundQuerySchema = z.object({ loginToken: z.string().optional() }).passthrough();

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

const payArgsResponse = <A extends z.ZodTypeAny>(args: A) => z.object({ version: z.literal(PAY_VERSION), status: z.literal('success'), args });
export const nativePayResponseSchema = payArgsResponse(nativePayArgsSchema);
export const miniProgramPayResponseSchema = payArgsResponse(miniProgramPayArgsSchema);
export const appPayResponseSchema = payArgsResponse(appPayArgsSchema);
export type PayArgsResponse<A> = { version: typeof PAY_VERSION; status: 'success'; args: A };
export type NativePayResponse = z.infer<typeof nativePayResponseSchema>;

/** 6.3 `alipayNative` body: the order to pay with an Alipay code. */
export const alipayNativeRequestSchema = z.object({ prepayId: prepayIdSchema }).strict();
/** 6.3 `alipayNative` `args`: the code payers scan with Alipay (`alipay.trade.precreate`'s answer). */
export const alipayNativeArgsSchema = z.object({ qr_code: z.string().min(1) });
export type AlipayNativeArgs = z.infer<typeof alipayNativeArgsSchema>;
export const alipayNativeResponseSchema = payArgsResponse(alipayNativeArgsSchema);
export type AlipayNativeResponse = z.infer<typeof alipayNativeResponseSchema>;

/** The payer's open id as Alipay issues it to the mini-program (`open_id`, or the older 16-digit `user_id`). */
export const alipayOpenIdSchema = z.string().regex(/^[0-9A-Za-z_-]{1,128}$/, 'must be an Alipay open id (letters, digits, "-" and "_")');

/** 6.3 `alipayMini` body: the order and the payer's open id in the Alipay mini-program (obtained on the backend). */
export const alipayMiniRequestSchema = z.object({ prepayId: prepayIdSchema, buyerOpenId: alipayOpenIdSchema }).strict();
/** 6.3 `alipayMini` `args`: the trade the mini-program pays with `my.tradePay({tradeNO})` (`alipay.trade.create`'s `trade_no`). */
export const alipayMiniArgsSchema = z.object({ tradeNO: z.string().min(1) });
export type AlipayMiniArgs = z.infer<typeof alipayMiniArgsSchema>;
export const alipayMiniResponseSchema = payArgsResponse(alipayMiniArgsSchema);
export type AlipayMiniResponse = z.infer<typeof alipayMiniResponseSchema>;

/** 6.3 `alipayApp` body. */
export const alipayAppRequestSchema = z.object({ prepayId: prepayIdSchema }).strict();
/** 6.3 `alipayApp` `args`: the signed `alipay.trade.app.pay` order string the Alipay app SDK takes as it is. */
export const alipayAppArgsSchema = z.object({ orderStr: z.string().min(1) });
export type AlipayAppArgs = z.infer<typeof alipayAppArgsSchema>;
export const alipayAppResponseSchema = payArgsResponse(alipayAppArgsSchema);
export type AlipayAppResponse = z.infer<typeof alipayAppResponseSchema>;

/** Where a payment page sends the payer back: an http(s) URL. */
export const returnUrlSchema = z
  .string()
  .max(1024, 'must be at most 1024 characters')
  .url('must be an http(s) URL')
  .regex(/^https?:\/\//i, 'must be an http(s) URL');

/** 6.3 `alipayWap` body: `returnUrl` is where Alipay's page sends the payer back (after paying, or on leaving). */
export const alipayWapRequestSchema = z.object({ prepayId: prepayIdSchema, returnUrl: returnUrlSchema.optional() }).strict();
/** 6.3 `alipayWap` `args`: the signed `alipay.trade.wap.pay` URL to open in Alipay's browser (a GET on Alipay's gateway). */
export const alipayWapArgsSchema = z.object({ url: z.string().min(1) });
export type AlipayWapArgs = z.infer<typeof alipayWapArgsSchema>;
export const alipayWapResponseSchema = payArgsResponse(alipayWapArgsSchema);
export type AlipayWapResponse = z.infer<typeof alipayWapResponseSchema>;
export type MiniProgramPayResponse = z.infer<typeof miniProgramPayResponseSchema>;
export type AppPayResponse = z.infer<typeof appPayResponseSchema>;

/** 4.6: HTTP 200 with `success` is the only answer that means the refund was accepted. */
export const refundResponseSchema = z.object({ version: z.literal(PAY_VERSION), status: z.literal('success') });
export type RefundResponse = z.infer<typeof refundResponseSchema>;

export const CALLBACK_STATUSES = ['finish', 'refunded'] as const;
export type CallbackStatus = (typeof CALLBACK_STATUSES)[number];

/** Section 6 callback body. */
export const callbackEventSchema = z.object({
  notifyTime: z.string().datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }),
  prepayId: idString(64),
  status: z.enum(CALLBACK_STATUSES),
  subMerchantId: subMerchantIdSchema,
  merchantId: merchantIdSchema,
});
export type CallbackEvent = z.infer<typeof callbackEventSchema>;
