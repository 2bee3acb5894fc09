/**
 * What every channel's payment parameters (2.3, 4.7) are made of. Every field is optional on a
 * merchant because a sub-merchant inherits, field by field, what its parent sets; completeness is
 * checked when a payment needs them.
 */
import { z } from 'zod';

/** Where the merchant's callbacks (section 6) go. */
export const callbackUrlSchema = z
  .string()
  .max(512)
  .url('must be an absolute URL')
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http or https URL')
  // Callbacks prove themselves by their signature; a password in the URL would only be stored and logged.
  .refine((u) => !/^https?:\/\/[^/?#]*@/i.test(u), 'must not carry a user name or password');

/** A parameter's text field. */
export const paramField = (max = 64) => z.string().trim().min(1, 'must not be empty').max(max);

/** A channel's parameters: the given fields, each optional (inherited), nothing else. */
export const channelParameters = <S extends z.ZodRawShape>(shape: S) => z.object(shape).partial().strict();
