import { z } from 'zod';
import { idString, merchantIdSchema, parentMerchantIdSchema, PAY_VERSION } from './common';
import { KIT_WALLETS, WALLETS, type ChannelParameters, type PaymentChannel } from '../wallets';

/** 4.16 login body. */
export const loginRequestSchema = z.object({
  userId: merchantIdSchema,
  pw: z.string().min(1, 'must not be empty').max(256),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const loginResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  displayName: z.string(),
  userId: z.string(),
  loginToken: z.string(),
  parentMerchantId: z.string().nullable(),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

const merchantCommon = {
  displayName: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  pw: z.string().min(8, 'must be at least 8 characters').max(256, 'must be at most 256 characters'),
  disabled: z.boolean().optional().default(false),
  appId: idString(64),
};

/** 4.17 create merchant body. */
export const createMerchantRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('merchant'), parameters: z.object(merchantCommon).strict() }).strict(),
  z
    .object({
      type: z.literal('subMerchant'),
      parameters: z.object({ ...merchantCommon, parentMerchantId: parentMerchantIdSchema }).strict(),
    })
    .strict(),
]);
export type CreateMerchantRequest = z.input<typeof createMerchantRequestSchema>;
export const createMerchantResponseSchema = z.object({
  version: z.literal(PAY_VERSION),
  status: z.literal('success'),
  data: z.object({ id: z.string() }),
});
export type CreateMerchantResponse = z.infer<typeof createMerchantResponseSchema>;

/** The plain `{version: 1, status: "success"}` answer (4.7 and others). */
export const paySuccessSchema = z.object({ version: z.literal(PAY_VERSION), status: z.literal('success') });
export type PaySuccess = z.infer<typeof paySuccessSchema>;

/** The payment channels (4.7): the channels of every wallet (`../wallets/`). */
export const PAYMENT_CHANNELS = KIT_WALLETS.channels as [PaymentChannel, ...PaymentChannel[]];
export type { PaymentChannel };

type ChannelDeclarations = UnionToIntersection<(typeof WALLETS)[number]['parameters']>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * Channel parameters (2.3), as each wallet declares them. Every field is optional on a merchant
 * because a sub-merchant inherits, field by field, what its parent sets; completeness is checked
 * when a payment needs them.
 */
export const channelParamsSchemas = Object.fromEntries(WALLETS.flatMap((w) => Object.entries(w.parameters))) as {
  [C in PaymentChannel]: ChannelDeclarations[C];
};
export type ChannelParams = { [C in PaymentChannel]: z.infer<(typeof channelParamsSchemas)[C]> };

/**
 * What 4.7 may send for a channel (a merge, so that a partial update never drops a field): a field
 * present is set, a field sent as `null` is cleared, a field not sent stays as it was.
 */
export const paramsPatchSchema = (schema: ChannelParameters) =>
  z.object(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k, (v as z.ZodOptional<z.ZodTypeAny>).unwrap().nullable().optional()]))).strict();
export const channelParamsPatchSchemas = Object.fromEntries(
  Object.entries(channelParamsSchemas).map(([channel, schema]) => [channel, paramsPatchSchema(schema as ChannelParameters)]),
) as unknown as Record<PaymentChannel, z.ZodObject<z.ZodRawShape>>;
/** A 4.7 change of one channel's parameters: values to set, `null` to clear. */
export type ChannelParamsPatch = Record<string, unknown>;

/**
 * The 4.7 body for these channels, each with its parameters (`parametersOf`): `parameters` is
 * validated against the channel's own schema (fields may be `null`: cleared).
 */
export function setPaymentParamsRequestSchemaFor<C extends string>(
  channels: readonly [C, ...C[]],
  parametersOf: (channel: C) => ChannelParameters | undefined,
) {
  const patches = new Map(channels.map((c) => [c, paramsPatchSchema(parametersOf(c) ?? z.object({}).strict())]));
  return z
    .object({
      id: merchantIdSchema,
      paymentChannel: z.enum(channels),
      parameters: z.record(z.unknown()),
    })
    .strict()
    .superRefine((body, ctx) => {
      const parsed = patches.get(body.paymentChannel as C)!.safeParse(body.parameters);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['parameters', ...issue.path] });
      } else if (Object.keys(parsed.data).length === 0) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['parameters'], message: 'must set or clear at least one field' });
      }
    });
}

/** 4.7 body; `parameters` is validated against the channel's own schema (fields may be `null`: cleared). */
export const setPaymentParamsRequestSchema = setPaymentParamsRequestSchemaFor(PAYMENT_CHANNELS, (c) => KIT_WALLETS.parametersOf(c));
export type SetPaymentParamsRequest = z.infer<typeof setPaymentParamsRequestSchema>;
