import { KitError, describeZodError } from '@kit/shared';
import type { z } from 'zod';

/** Parses with a zod schema; a mismatch becomes one clear `invalid_request`. */
export function validate<S extends z.ZodTypeAny>(schema: S, value: unknown, what = 'body'): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new KitError('invalid_request', `${what}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
