import { z } from 'zod';
import { prepayIdSchema, PAY_VERSION, subMerchantIdSchema } from './common';

export const ORDER_STATUSES = ['active', 'finish', 'cancel', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Largest `extraInfo`, serialised. */
export const MAX_EXTRA_INFO_BYTES = 8 * 1024;

/** 4.1 body. `totalAmount` is validated by `parseCents` (strict decimal string). */
export const createPrepayRequestSchema = z
  .object({
    subMerchantId: subMerchantIdSchema,
    totalAmount: z.unknown(),
    orderId: z.null({ message: 'must be null in this version' }).optional(),
    extraInfo: z.unknown().optional(),
  })
  .strict();
export type CreatePrepayRequest = {
  subMerchantId: string;
  totalAmount: string;
  orderId?: null;
  extraInfo?: unknown;
};
export const createPrepayResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  prepayId: z.string(),
});
export type CreatePrepayResponse = z.infer<typeof createPrepayResponseSchema>;

/** 4.2 query. */
export const prepayDetailQuerySchema = z.object({
  waitForFinish: z.enum(['0', '1']).optional().default('0'),
});
export const prepayIdParamSchema = z.object({ prepayId: prepayIdSchema });

/** 4.2 answer (the field `disconut` is spelled as the specification spells it). */
export const prepayDetailSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.enum(ORDER_STATUSES),
  merchantDisplayName: z.string(),
  totalAmount: z.string(),
  disconut: z.string(),
  createTime: z.string(),
  paymentTime: z.string().optional(),
});
export type PrepayDetail = z.infer<typeof prepayDetailSchema>;
