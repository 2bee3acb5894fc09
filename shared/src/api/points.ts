/** 4.12 trusted-points balance and 4.13 deduction code (fields of 2.6). All parameters are query fields. */
import { z } from 'zod';
import { CHAIN_VERSION, NO_CONTROL_CHARS } from './common';

export { DEDUCTION_CODE_REFRESH_MS, DEDUCTION_CODE_TTL_MS } from './deduction-code';

const queryId = (max = 128) =>
  z
    .string({ required_error: 'is required', invalid_type_error: 'must be given once' })
    .min(1, 'must not be empty')
    .max(max)
    .regex(NO_CONTROL_CHARS, 'must not contain control characters');

export const pointTokenIdSchema = queryId(64);

const account = {
  tokenId: pointTokenIdSchema,
  tokenAppId: queryId(64),
  userAppId: queryId(64),
  userId: queryId(128),
};

/** 4.12 query (the signature fields pass through). */
export const balanceQuerySchema = z.object(account).passthrough();
export type BalanceQuery = z.infer<typeof balanceQuerySchema>;

/** 4.13 query: `maxAmount` is a number on the wire (parsed with parsePointsNumber), `uuid` 32 letters/digits. */
export const deductionCodeQuerySchema = z
  .object({
    ...account,
    maxAmount: z.string({ required_error: 'is required', invalid_type_error: 'must be given once' }),
    uuid: z
      .string({ required_error: 'is required', invalid_type_error: 'must be given once' })
      .regex(/^[0-9A-Za-z]{32}$/, 'must be exactly 32 letters and digits'),
  })
  .passthrough();
export type DeductionCodeQuery = z.infer<typeof deductionCodeQuerySchema>;

/** 4.12 answer; `balance` is a decimal string of points (formatPoints). */
export const balanceResponseSchema = z.object({
  version: z.literal(CHAIN_VERSION),
  status: z.literal('success'),
  data: z.object({ balance: z.string(), tokenId: z.string(), tokenAppId: z.string(), userAppId: z.string(), userId: z.string() }),
});
export type BalanceResponse = z.infer<typeof balanceResponseSchema>;

/** 4.13 answer. `chainLinks` currently holds exactly one item, the QR content; `expiresAt` is Unix ms. */
export const deductionCodeResponseSchema = z.object({
  version: z.literal(CHAIN_VERSION),
  status: z.literal('success'),
  data: z.object({ chainLinks: z.array(z.string().min(1)).nonempty(), uuid: z.string(), maxAmount: z.string(), expiresAt: z.number() }),
});
export type DeductionCodeResponse = z.infer<typeof deductionCodeResponseSchema>;
