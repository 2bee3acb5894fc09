/**
 * Callback operations (design 5.3): every callback of section 6 with every attempt, readable by the
 * app that owns the merchant; resending one, and recovering the given-up callbacks of a window.
 * Request schemas (the service validates with them) and answer schemas (the typed client checks
 * answers against them).
 */
import { z } from 'zod';
import { PAY_VERSION, merchantIdSchema, prepayIdSchema } from './common';
import { CALLBACK_STATUSES } from './payment';

/** `pending` while attempts go on, `delivered` once the receiver said `OK`, `given_up` when the retries ran out (or no URL was set). */
export const CALLBACK_STATES = ['pending', 'delivered', 'given_up'] as const;
export type CallbackDeliveryState = (typeof CALLBACK_STATES)[number];

/** Callbacks per page at most, and by default. */
export const CALLBACK_PAGE_MAX = 100;
export const CALLBACK_PAGE_DEFAULT = 50;

/** Bytes of the receiver's answer shown per attempt. */
export const CALLBACK_ANSWER_BYTES = 200;

/** A callback's id: the decimal digits of its number. */
export const callbackIdSchema = z.string().regex(/^[1-9][0-9]{0,15}$/, 'must be a callback id (digits)');

const isoTime = z
  .string()
  .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 time such as "2026-01-31T00:00:00Z"');

/**
 * `GET /callbacks`: by order (`prepayId`), or by merchant (`merchantId`, a parent merchant taking its
 * sub-merchants in) with an optional state and creation window `[since, until)`. Newest first;
 * `cursor` is the `next` of the page before.
 */
export const callbackListQueryObject = z.object({
  prepayId: prepayIdSchema.optional(),
  merchantId: merchantIdSchema.optional(),
  state: z.enum(CALLBACK_STATES).optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  cursor: callbackIdSchema.optional(),
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n <= CALLBACK_PAGE_MAX, `must be at most ${CALLBACK_PAGE_MAX}`)
    .optional(),
});
export const callbackListQuerySchema = callbackListQueryObject
  // The signature's own fields travel in the same query.
  .extend({ _appid: z.string().optional(), _t: z.string().optional(), _s: z.string().optional() })
  .strict()
  .superRefine((q, ctx) => {
    if (!q.prepayId === !q.merchantId) ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'give either prepayId or merchantId' });
    if (q.since && q.until && Date.parse(q.since) > Date.parse(q.until))
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['until'], message: 'must not be before since' });
  });
/** What the typed client sends as the query of `GET /callbacks`. */
export interface CallbackListQuery {
  prepayId?: string;
  merchantId?: string;
  state?: CallbackDeliveryState;
  since?: string;
  until?: string;
  cursor?: string;
  limit?: number;
}

/** `POST /callbacks/resend`. */
export const callbackResendRequestSchema = z.object({ id: callbackIdSchema }).strict();
export type CallbackResendRequest = z.infer<typeof callbackResendRequestSchema>;

/** `POST /callbacks/recover`: every given-up callback of the merchant (and its sub-merchants) created in `[since, until)`. */
export const callbackRecoverRequestSchema = z
  .object({ merchantId: merchantIdSchema, since: isoTime, until: isoTime })
  .strict()
  .refine((r) => Date.parse(r.since) <= Date.parse(r.until), { path: ['until'], message: 'must not be before since' });
export type CallbackRecoverRequest = z.infer<typeof callbackRecoverRequestSchema>;

export const callbackAttemptSchema = z.object({
  at: z.string(),
  httpStatus: z.number().nullable(),
  error: z.string().nullable(),
  latencyMs: z.number(),
  /** The first 200 bytes of what the receiver answered. */
  answer: z.string().nullable(),
});
export type CallbackAttempt = z.infer<typeof callbackAttemptSchema>;

export const callbackItemSchema = z.object({
  id: z.string(),
  prepayId: z.string(),
  /** What it reports: a payment (`finish`) or a completed refund (`refunded`). */
  event: z.enum(CALLBACK_STATUSES),
  state: z.enum(CALLBACK_STATES),
  subMerchantId: z.string(),
  merchantId: z.string(),
  /** Where the last attempt went (null before the first, or when no URL was set). */
  url: z.string().nullable(),
  createdAt: z.string(),
  /** Oldest first; a resend starts a new series after the earlier ones. */
  attempts: z.array(callbackAttemptSchema),
  /** When the next attempt is due while `pending`, otherwise null. */
  nextAttemptAt: z.string().nullable(),
});
export type CallbackItem = z.infer<typeof callbackItemSchema>;

export const callbackListResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({ items: z.array(callbackItemSchema), next: z.string().optional() }),
});
export type CallbackListResponse = z.infer<typeof callbackListResponseSchema>;

/** `resent`: this call made an attempt due now (a new series, or a pending callback's next retry brought forward); false when one was already under way. */
export const callbackResendResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({ id: z.string(), state: z.literal('pending'), resent: z.boolean() }),
});
export type CallbackResendResponse = z.infer<typeof callbackResendResponseSchema>;

export const callbackRecoverResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({ resent: z.number() }),
});
export type CallbackRecoverResponse = z.infer<typeof callbackRecoverResponseSchema>;
