/**
 * Profit sharing (4.8): receivers, splits of a paid order (at most 30 % of it, all
 * splits together), their asynchronous results, finishing an order's sharing, and its amounts.
 * Request schemas (the service validates with them) and answer schemas (the typed client checks
 * answers against them).
 */
import { z } from 'zod';
import { parseCents } from '../money';
import { PAY_VERSION, amountString, merchantIdSchema, prepayIdSchema } from './common';

export const RECEIVER_TYPES = ['MERCHANT_ID', 'PERSONAL_OPENID'] as const;
export type ReceiverType = (typeof RECEIVER_TYPES)[number];

/** How a receiver relates to the merchant, as the payment platform names it. */
export const RELATION_TYPES = [
  'SERVICE_PROVIDER',
  'STORE',
  'STAFF',
  'STORE_OWNER',
  'PARTNER',
  'HEADQUARTER',
  'BRAND',
  'DISTRIBUTOR',
  'USER',
  'SUPPLIER',
  'CUSTOM',
] as const;

/**
 * The platform's `custom_relation`: what the receiver is to the merchant, in its own words, required
 * with relation type `CUSTOM` and at most 10 characters (wechatpay-go `services/profitsharing/models.go`,
 * AddReceiverRequest.CustomRelation: 本字段最多10个字, 当字段relation_type的值为CUSTOM时，本字段必填).
 */
export const MAX_CUSTOM_RELATION_CHARS = 10;

/** Largest share of an order's amount, all splits together (section 8). */
export const MAX_SHARE_PERCENT = 30;
/** Receivers per split, as the platform allows. */
export const MAX_SPLIT_RECEIVERS = 50;

/** The most that may be shared of an order of `totalCents`: 30 %, rounded down to the cent. */
export const maxShareCents = (totalCents: number): number => Math.floor((totalCents * MAX_SHARE_PERCENT) / 100);

/**
 * Where an order placed with profit sharing stands, as a screen shows it: `open` while more may be
 * shared, `processing` while a split or finish is on its way, `finished` once the rest was
 * released to the merchant. `sharedAmount` counts splits accepted or done (not refused ones).
 */
export interface ProfitSharingSummary {
  state: 'open' | 'processing' | 'finished';
  sharedAmount: string;
  maxShareAmount: string;
}

const account = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^[0-9A-Za-z_-]+$/, 'must be letters, digits, "-" or "_"');
const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** The merchant's own number for a split (or a finish); unique per order. */
export const outOrderNoSchema = z.string().regex(/^[0-9A-Za-z_\-|*@]{1,64}$/, 'must be 1–64 letters, digits or _-|*@');

const receiverKey = { type: z.enum(RECEIVER_TYPES), account };

/**
 * `POST /submerchant-pay/profitSharing/receivers`: a merchant enterprise needs its name, as the
 * platform checks it; relation type `CUSTOM` needs `customRelation`, which no other type takes.
 */
export const addReceiverRequestSchema = z
  .object({
    merchantId: merchantIdSchema,
    ...receiverKey,
    name: text(128).optional(),
    relationType: z.enum(RELATION_TYPES),
    // Counted in characters as the platform counts them (a Chinese character is one).
    customRelation: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .refine((v) => [...v].length <= MAX_CUSTOM_RELATION_CHARS, `must be at most ${MAX_CUSTOM_RELATION_CHARS} characters`)
      .optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.type === 'MERCHANT_ID' && !r.name)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['name'], message: 'is required for a MERCHANT_ID receiver (its registered name)' });
    if (r.relationType === 'CUSTOM' && r.customRelation === undefined)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['customRelation'], message: 'is required when relationType is CUSTOM (the relation in your words)' });
    if (r.relationType !== 'CUSTOM' && r.customRelation !== undefined)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['customRelation'], message: 'is only for relationType CUSTOM' });
  });
export type AddReceiverRequest = z.input<typeof addReceiverRequestSchema>;

/** `POST /submerchant-pay/profitSharing/receivers/remove`. */
export const removeReceiverRequestSchema = z.object({ merchantId: merchantIdSchema, ...receiverKey }).strict();
export type RemoveReceiverRequest = z.infer<typeof removeReceiverRequestSchema>;

/** A decimal amount with at most 2 decimals, above zero (never a number). */
const amountSchema = amountString(parseCents, '1.50');

/** `POST /submerchant-pay/profitSharing/orders`: one split of a paid order. */
export const splitRequestSchema = z
  .object({
    prepayId: prepayIdSchema,
    outOrderNo: outOrderNoSchema,
    receivers: z
      .array(z.object({ ...receiverKey, amount: amountSchema, description: text(80) }).strict())
      .min(1, 'must name at least one receiver')
      .max(MAX_SPLIT_RECEIVERS, `must name at most ${MAX_SPLIT_RECEIVERS} receivers`),
    /** Ends the order's sharing with this split: the rest is released to the merchant. */
    finish: z.boolean().optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const seen = new Set<string>();
    r.receivers.forEach((x, i) => {
      const key = `${x.type}:${x.account}`;
      if (seen.has(key)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['receivers', i], message: 'names the same receiver twice' });
      seen.add(key);
    });
  });
export type SplitRequest = z.infer<typeof splitRequestSchema>;

/** `POST /submerchant-pay/profitSharing/finish`. */
export const finishSharingRequestSchema = z.object({ prepayId: prepayIdSchema, outOrderNo: outOrderNoSchema, description: text(80) }).strict();
export type FinishSharingRequest = z.infer<typeof finishSharingRequestSchema>;

export const SPLIT_STATES = ['processing', 'finished'] as const;
export type SplitState = (typeof SPLIT_STATES)[number];
export const RECEIVER_RESULTS = ['pending', 'success', 'closed'] as const;
export type ReceiverResult = (typeof RECEIVER_RESULTS)[number];

/** The answer to a split or a finish: accepted at once; results come later. */
export const splitAcceptedResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({ outOrderNo: z.string(), state: z.enum(SPLIT_STATES) }),
});
export type SplitAcceptedResponse = z.infer<typeof splitAcceptedResponseSchema>;

export const splitReceiverSchema = z.object({
  type: z.enum(RECEIVER_TYPES),
  account: z.string(),
  amount: z.string(),
  description: z.string(),
  result: z.enum(RECEIVER_RESULTS),
  failReason: z.string().optional(),
  finishTime: z.string().optional(),
});
export type SplitReceiver = z.infer<typeof splitReceiverSchema>;

/** `GET /submerchant-pay/profitSharing/orders/<outOrderNo>?prepayId=<id>`. */
export const splitDetailResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({
    outOrderNo: z.string(),
    prepayId: z.string(),
    state: z.enum(SPLIT_STATES),
    receivers: z.array(splitReceiverSchema),
  }),
});
export type SplitDetailResponse = z.infer<typeof splitDetailResponseSchema>;
export const splitDetailQuerySchema = z.object({ prepayId: prepayIdSchema }).passthrough();

/** `GET /submerchant-pay/profitSharing/amounts/<prepayId>`: what may still be shared, and whether the rest was released. */
export const sharingAmountsResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({
    totalAmount: z.string(),
    /** Shared or being shared (receivers whose share was closed do not count). */
    sharedAmount: z.string(),
    maxShareAmount: z.string(),
    /** True once the order's sharing was finished and what was not shared was released to the merchant. */
    unfrozen: z.boolean(),
  }),
});
export type SharingAmountsResponse = z.infer<typeof sharingAmountsResponseSchema>;
