/** Request schemas of the POS router (`/pos/api/*`); types and answers are in `pos.ts`. */
import { z } from 'zod';

/**
 * Login with a sub-merchant id and its password (4.16 behind the router). Any id shape is read
 * here; the router answers `pos_not_sub_merchant` for a parent merchant's id and `login_failed`
 * for an id that is no merchant's (see `POS_LOGIN_ID`), so the display can say so in words.
 */
export const posLoginSchema = z
  .object({
    userId: z.string().min(1, 'must not be empty').max(64),
    pw: z.string().min(1, 'must not be empty').max(256),
  })
  .strict();
export type PosLoginRequest = z.infer<typeof posLoginSchema>;

/** `amount` is checked by `parseCents` (the same rule as 4.1). */
export const posCreateOrderSchema = z.object({ amount: z.string().max(32) }).strict();
export type PosCreateOrderRequest = z.infer<typeof posCreateOrderSchema>;

/** The payer's payment code as the scanner (or the camera, or the cashier's fingers) read it: digits only, spaces and dashes left out. */
export const posPayCodeSchema = z
  .object({
    authCode: z
      .string()
      .max(64)
      .transform((s) => s.replace(/[\s-]/g, ''))
      .pipe(z.string().regex(/^\d{16,24}$/, 'must be a payment code: 16 to 24 digits')),
  })
  .strict();

export const posOrderIdSchema = z.object({ prepayId: z.string().regex(/^[0-9A-Za-z]{1,64}$/, 'must be a prepay id') });

/** Start of "today" as the display's clock sees it (Unix ms); the router accepts at most 48 h back. */
export const posListOrdersSchema = z.object({ since: z.coerce.number().int().nonnegative().optional() }).strict();

const pointsUser = {
  tokenId: z.string().trim().min(1, 'must not be empty').max(64),
  /** The app that issued the point type; defaults to the app that owns the sub-merchant. */
  tokenAppId: z.string().trim().min(1).max(64).optional(),
  userId: z.string().trim().min(1, 'must not be empty').max(128),
};
export const posBalanceQuerySchema = z.object(pointsUser).strict();
export type PosBalanceQuery = z.infer<typeof posBalanceQuerySchema>;

/** `maxAmount` is a points decimal (`parsePoints`). */
export const posPointsSessionSchema = z.object({ ...pointsUser, maxAmount: z.string().max(32) }).strict();
export type PosPointsSessionRequest = z.infer<typeof posPointsSessionSchema>;

export const posPointsCodeSchema = z.object({ handle: z.string().min(1).max(2048) }).strict();
