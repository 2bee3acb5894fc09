/**
 * Refund (4.6) and the payment-result callback (section 6): request schemas, answer schemas (the
 * typed client checks answers against them) and the callback body. The ways to pay (4.3–4.5 and
 * each wallet's own) are declared in `../wallets/`.
 */
import { z } from 'zod';
import { idString, merchantIdSchema, prepayIdSchema, PAY_VERSION, subMerchantIdSchema } from './common';
import { appPayArgsSchema, miniProgramPayArgsSchema, nativePayArgsSchema, wayAnswerSchema } from '../wallets';

/** 4.6 body (full refund of a paid order). */
export const refundRequestSchema = z.object({ id: prepayIdSchema }).strict();
/**
 * 4.6 query: the login token of the order's sub-merchant or of its parent merchant. A missing or
 * empty one is not a malformed request but an invalid login: 401 (specification 5.4 and 7).
 */
export const refundQuerySchema = z.object({ loginToken: z.string().optional() }).passthrough();

/** The answers of the social app's ways (4.3–4.5), read from their declarations (`wallets/social.ts`). */
export const nativePayResponseSchema = wayAnswerSchema(nativePayArgsSchema);
export const miniProgramPayResponseSchema = wayAnswerSchema(miniProgramPayArgsSchema);
export const appPayResponseSchema = wayAnswerSchema(appPayArgsSchema);
export type NativePayResponse = z.infer<typeof nativePayResponseSchema>;
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
