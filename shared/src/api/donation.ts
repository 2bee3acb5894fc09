/** 4.9 donation project, 4.10 donation, 4.11 on-chain id lookup (fields of 2.4 and 2.5). */
import { z } from 'zod';
import { compareDecimals, isZeroDecimal, parseRmb } from '../money';
import { CHAIN_VERSION, amountString } from './common';
import { localIdSchema } from './chain';

/** Ids per 4.11 lookup (section 8). */
export const MAX_DONATION_LOOKUP_IDS = 20;

const text = (max: number) => z.string({ invalid_type_error: 'must be a string' }).max(max, `must be at most ${max} characters`);
const words = z.array(text(64)).max(50, 'must hold at most 50 entries');
/** "UNIX timestamp, sent as a number". */
const unixTime = z.number({ invalid_type_error: 'must be a number (UNIX timestamp)' }).nonnegative().finite();

/** `"<decimal with at least 2 decimals> RMB"`. */
export const rmbAmountSchema = amountString(parseRmb, '100.00 RMB');

/** `"<decimal with at least 2 decimals> RMB"`, above zero (section 8: at least two decimals; more are kept as sent). */
export const donationAmountSchema = amountString(parseRmb, '10.00 RMB', (v) => (isZeroDecimal(parseRmb(v)) ? 'must be greater than zero' : null));

/** 2.4. `targetAmount` is `[min, max]` with min ≤ max. */
export const donationProjectSchema = z
  .object({
    id: localIdSchema,
    createTime: unixTime.optional(),
    title: text(256).optional(),
    desc: text(20_000).optional(),
    founder: text(256).optional(),
    category: words.optional(),
    keyWords: words.optional(),
    targetAmount: z.tuple([rmbAmountSchema, rmbAmountSchema], { invalid_type_error: 'must be ["<min> RMB", "<max> RMB"]' }).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (!p.targetAmount) return;
    try {
      if (compareDecimals(parseRmb(p.targetAmount[0]), parseRmb(p.targetAmount[1])) > 0) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['targetAmount'], message: 'the minimum must not be above the maximum' });
      }
    } catch {
      // Reported by the element schemas.
    }
  });
export type DonationProject = z.infer<typeof donationProjectSchema>;

/** 2.5. */
export const donationSchema = z
  .object({
    id: localIdSchema,
    donatorId: text(128).optional(),
    donatorPublicKey: text(256).optional(),
    donatorName: text(256).optional(),
    createTime: unixTime.optional(),
    projectId_biz: localIdSchema,
    projectId_bc: text(128).optional(),
    amount: donationAmountSchema.optional(),
  })
  .strict();
export type Donation = z.infer<typeof donationSchema>;

/** 4.11 body; the count is checked apart so that the limit error is the one reported. */
export const donationLookupSchema = z
  .object({
    type: z.enum(['project', 'donate']),
    originalIds: z.array(localIdSchema).min(1, 'must hold at least one id'),
  })
  .strict();
export type DonationLookupRequest = z.infer<typeof donationLookupSchema>;

/** 4.9, 4.10 and 4.11 while any asked id is queued: accepted, not yet on chain. */
export const donationPendingResponseSchema = z.object({ version: z.literal(CHAIN_VERSION), status: z.literal('pending') });
export type DonationPendingResponse = z.infer<typeof donationPendingResponseSchema>;

/** `ids` maps each confirmed original id to its on-chain id; ids that failed or are unknown are left out. */
export const donationIdsResponseSchema = z.object({ version: z.literal(CHAIN_VERSION), status: z.literal('success'), ids: z.record(z.string()) });
export type DonationIdsResponse = z.infer<typeof donationIdsResponseSchema>;

/** 4.11 answers `success` with the ids, or `pending` (retry later; tell the user the data is being certified). */
export const donationOnChainIdsAnswerSchema = z.discriminatedUnion('status', [donationIdsResponseSchema, donationPendingResponseSchema]);
export type DonationOnChainIdsAnswer = z.infer<typeof donationOnChainIdsAnswerSchema>;
