import { z } from 'zod';
import { AmountError } from '../money';

/** `version` as section 9 fixes it: a number for payment and merchant, a string elsewhere. */
export const PAY_VERSION = 1 as const;
export const CHAIN_VERSION = '1' as const;
export type ApiVersion = typeof PAY_VERSION | typeof CHAIN_VERSION;

/** Every failure carries these; `code`/`traceId` are always present on this service's answers. */
export const failSchema = z.object({
  version: z.union([z.literal(1), z.literal('1')]),
  status: z.literal('fail'),
  error: z.string(),
  code: z.string().optional(),
  msg: z.string(),
  traceId: z.string().optional(),
});
export type FailResponse = z.infer<typeof failSchema>;

/** Text without control characters (U+0000–U+001F), which ids and names must not carry. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const NO_CONTROL_CHARS = /^[^\u0000-\u001f]*$/;

/** Identifiers the caller chooses: printable, bounded. */
export const idString = (max = 128) =>
  z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).regex(NO_CONTROL_CHARS, 'must not contain control characters');

/** Merchant ids: `PM…` or `SM…`. */
export const merchantIdSchema = z.string().regex(/^(PM|SM)[0-9A-Za-z]{1,30}$/, 'must be a merchant id such as "SM…" or "PM…"');
export const subMerchantIdSchema = z.string().regex(/^SM[0-9A-Za-z]{1,30}$/, 'must be a sub-merchant id starting with "SM"');
export const parentMerchantIdSchema = z.string().regex(/^PM[0-9A-Za-z]{1,30}$/, 'must be a parent merchant id starting with "PM"');

/** Our own prepay ids; nothing may depend on their length or prefix, so only the alphabet is checked. */
export const prepayIdSchema = z.string().regex(/^[0-9A-Za-z]{1,64}$/, 'must be a prepay id (letters and digits)');

/** Turns a zod error into one readable line: `field: message; field: message`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * A string read by one of the money parsers of `money.ts`: its `AmountError` becomes the zod issue,
 * so a bad amount is refused with the parser's own words ("has 3 decimals; at most 2 allowed").
 */
export function amountString(parse: (text: string) => unknown, example: string, refine?: (value: string) => string | null) {
  return z.string({ invalid_type_error: `must be a decimal string like "${example}"` }).superRefine((v, ctx) => {
    try {
      parse(v);
    } catch (e) {
      if (!(e instanceof AmountError)) throw e;
      return void ctx.addIssue({ code: z.ZodIssueCode.custom, message: e.message });
    }
    const problem = refine?.(v);
    if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
  });
}
