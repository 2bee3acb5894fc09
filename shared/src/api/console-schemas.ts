/** Request schemas of the console router (`/console/api/*`). */
import { z } from 'zod';
import { callbackIdSchema } from './callbacks';
import { merchantIdSchema, prepayIdSchema } from './common';
import { reconciliationDateSchema } from './reconciliation';

/** Console logins: a parent merchant or a sub-merchant id, and its password (4.16). */
export const consoleLoginSchema = z.object({ userId: z.string().min(1).max(64), pw: z.string().min(1).max(256) }).strict();

/** One day of orders (`day` in the browser's zone, given as its UTC offset in minutes), optionally of one status and sub-merchant; or one order by id. */
export const consoleOrdersQuerySchema = z
  .object({
    day: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day such as 2026-01-31')
      .optional(),
    tz: z
      .string()
      .regex(/^-?\d{1,4}$/, 'must be minutes east of UTC')
      .transform(Number)
      .refine((n) => Math.abs(n) <= 14 * 60, 'must be within ±14 hours')
      .optional(),
    status: z.enum(['active', 'finish', 'cancel', 'refunded']).optional(),
    subMerchantId: merchantIdSchema.optional(),
    prepayId: prepayIdSchema.optional(),
  })
  .strict();
export type ConsoleOrdersQuery = z.input<typeof consoleOrdersQuerySchema>;

export const consoleOrderIdSchema = z.object({ prepayId: prepayIdSchema }).strict();
/** A reconciled China date (`YYYY-MM-DD`). */
export const consoleReconciliationDateSchema = z.object({ date: reconciliationDateSchema }).strict();
export const consoleCallbackIdSchema = z.object({ id: callbackIdSchema }).strict();

/** The login's callbacks, optionally of one state, or of one order (what a resend is followed with). */
export const consoleCallbacksQuerySchema = z
  .object({ state: z.enum(['pending', 'delivered', 'given_up']).optional(), prepayId: prepayIdSchema.optional() })
  .strict();

/** Resend every given-up callback of the login's merchants created in `[since, until)`. */
export const consoleRecoverSchema = z.object({ since: z.string().datetime({ offset: true }), until: z.string().datetime({ offset: true }) }).strict();
export type ConsoleRecoverRequest = z.infer<typeof consoleRecoverSchema>;
