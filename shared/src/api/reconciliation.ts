/** Daily statement reconciliation (docs/reconciliation.md): the reports a merchant app reads. */
import { z } from 'zod';
import { PAY_VERSION } from './common';
import { PAYMENT_CHANNELS } from './merchant';

/** A China date written `YYYY-MM-DD` (a real calendar date). */
export const reconciliationDateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine((d) => {
    const t = Date.parse(`${d}T00:00:00Z`);
    return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d;
  }, 'must be a real calendar date');

export const DIFFERENCE_KINDS = ['status_mismatch', 'amount_mismatch', 'channel_only', 'kit_only'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];
export const DIFFERENCE_RESOLUTIONS = ['settled', 'refunded', 'open', 'pending_next_day', 'found_next_day'] as const;
export type DifferenceResolution = (typeof DIFFERENCE_RESOLUTIONS)[number];

/** One side's view of a line: its state there and its amount (decimal string). */
export const differenceViewSchema = z.object({ status: z.string(), amount: z.string() }).nullable();

export const reconciliationDifferenceSchema = z.object({
  kind: z.enum(DIFFERENCE_KINDS),
  outTradeNo: z.string(),
  outRefundNo: z.string().optional(),
  prepayId: z.string().optional(),
  kit: differenceViewSchema,
  channel: differenceViewSchema,
  resolution: z.enum(DIFFERENCE_RESOLUTIONS),
});
export type ReconciliationDifference = z.infer<typeof reconciliationDifferenceSchema>;

/** A bill's totals (decimal strings): settled payments and refunds, the channel's fees, and what is left. */
export const reconciliationTotalsSchema = z.object({
  payments: z.object({ count: z.number().int(), amount: z.string() }),
  refunds: z.object({ count: z.number().int(), amount: z.string() }),
  fees: z.string(),
  net: z.string(),
});
export type ReconciliationTotals = z.infer<typeof reconciliationTotalsSchema>;

/** `GET /reconciliation/<date>`: each channel's reconciled day, with the differences of the caller's merchants. */
export const reconciliationResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({
    date: z.string(),
    reports: z.array(
      z.object({
        channel: z.enum(PAYMENT_CHANNELS),
        state: z.literal('done'),
        differences: z.array(reconciliationDifferenceSchema),
      }),
    ),
  }),
});
export type ReconciliationResponse = z.infer<typeof reconciliationResponseSchema>;

/** `GET /reconciliation?limit=&before=`: query (beside the signature's own fields). */
export const reconciliationListQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'must be a number from 1 to 100')
    .refine((v) => Number(v) <= 100, 'must be a number from 1 to 100')
    .optional(),
  before: reconciliationDateSchema.optional(),
});

/** `GET /reconciliation`: the reconciled days, newest first, with the counts of the caller's merchants' differences. */
export const reconciliationListResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({
    reports: z.array(
      z.object({
        date: z.string(),
        channel: z.enum(PAYMENT_CHANNELS),
        /**
         * `running`, `done` (a day without trade is done with zero totals), `pending` (the channel has
         * not made the day's bill yet: `error` says so; the daily job tries again) or `failed` (the
         * bill could not be had or read: `error` says why; the day is retried).
         */
        state: z.enum(['running', 'done', 'pending', 'failed']),
        error: z.string().optional(),
        differences: z.number().int(),
        open: z.number().int(),
      }),
    ),
  }),
});
export type ReconciliationListResponse = z.infer<typeof reconciliationListResponseSchema>;
