/**
 * The action catalogue (docs/chain.md): one zod schema per type for `args`. Rules that depend on the
 * ledger's state (balances, spent codes, expiry) are applied when the item is sealed
 * (`points-rules.ts`); rules about the signer and references are checked at acceptance
 * (`ledger-service.ts`).
 */
import { z } from 'zod';
import {
  AmountError,
  NO_CONTROL_CHARS,
  donationProjectSchema,
  donationSchema,
  localIdSchema,
  parsePoints,
  pointTokenIdSchema,
  type ActionType,
} from '@kit/shared';

/** Points amounts: decimal strings with up to 5 decimals, above zero. */
export const pointsAmountSchema = z.string({ invalid_type_error: 'must be a decimal string such as "10.5"' }).superRefine((v, ctx) => {
  try {
    parsePoints(v);
  } catch (e) {
    if (!(e instanceof AmountError)) throw e;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: e.message });
  }
});

const appIdSchema = z.string().min(1, 'must not be empty').max(64);
const userIdSchema = z.string().min(1, 'must not be empty').max(128).regex(NO_CONTROL_CHARS, 'must not contain control characters');
const accountSchema = z.object({ userAppId: appIdSchema, userId: userIdSchema }).strict();

export const actionSchemas = {
  /** Generic data: any object with the caller's `id`. */
  record: z.object({ id: localIdSchema }).passthrough(),
  /** Fields of 2.4 / 2.5; stored encrypted under the uploading app's AppSecret. */
  'donation.project': donationProjectSchema,
  'donation.donate': donationSchema,
  /** A point type; the uploading app becomes its `tokenAppId`. */
  'points.create': z.object({ id: localIdSchema, tokenId: pointTokenIdSchema, name: z.string().min(1, 'must not be empty').max(64) }).strict(),
  /** Credits a user; only the issuing app (`tokenAppId`, which defaults to the signer, must equal it). */
  'points.issue': z
    .object({
      id: localIdSchema,
      tokenId: pointTokenIdSchema,
      tokenAppId: appIdSchema.optional(),
      userAppId: appIdSchema,
      userId: userIdSchema,
      amount: pointsAmountSchema,
    })
    .strict(),
  /** Moves points between users; only the sender's `userAppId` may upload it. `tokenAppId` defaults to the signer. */
  'points.transfer': z
    .object({
      id: localIdSchema,
      tokenId: pointTokenIdSchema,
      tokenAppId: appIdSchema.optional(),
      from: accountSchema,
      to: accountSchema,
      amount: pointsAmountSchema,
    })
    .strict()
    .refine((a) => a.from.userAppId !== a.to.userAppId || a.from.userId !== a.to.userId, { message: 'from and to must differ', path: ['to'] }),
  /** Deducts `amount` from the user named by a deduction code (4.13); the uploading app redeems it. */
  chainPay: z.object({ id: localIdSchema, code: z.string().min(1).max(2048), amount: pointsAmountSchema }).strict(),
} satisfies Record<ActionType, z.ZodTypeAny>;

export type ActionArgs<T extends ActionType> = z.infer<(typeof actionSchemas)[T]>;

/** An item with its args typed by its action type: switching on `type` gives each rule the fields of its own type. */
export type ActionItem = { [T in ActionType]: { type: T; args: ActionArgs<T> } }[ActionType];

/**
 * An item whose args its type's schema accepted: at upload (right after `actionSchemas[type]` passed,
 * schemas only check, so the args are the caller's data as given) or read back from the ledger, whose
 * contents never change after acceptance. The one place the checked data gets its static type.
 */
export function acceptedItem(type: string, args: unknown): ActionItem {
  return { type, args } as ActionItem;
}

/** Types whose contents are encrypted on the ledger. */
export const ENCRYPTED_TYPES: ReadonlySet<string> = new Set<ActionType>(['donation.project', 'donation.donate']);
/** Types the sealer applies to the points state. */
export const POINTS_TYPES: ReadonlySet<string> = new Set<ActionType>(['points.create', 'points.issue', 'points.transfer', 'chainPay']);

export const isActionType = (t: string): t is ActionType => Object.prototype.hasOwnProperty.call(actionSchemas, t);
