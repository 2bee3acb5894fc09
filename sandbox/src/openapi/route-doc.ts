/** A route of the sandbox in the reference: its group, no login, development only; and its refusals' shape. */
import { z } from 'zod';
import type { RouteDoc } from '@kit/server/plugins/dev-plugin';

export const sandboxRouteDoc = (doc: Omit<RouteDoc, 'tag' | 'auth' | 'sandboxOnly'>): RouteDoc => ({
  tag: 'Sandbox (development only)',
  auth: 'none',
  sandboxOnly: true,
  ...doc,
});

/** The payer API's refusal: `{status: "fail", msg}`. */
export const failAnswer = z.object({ status: z.literal('fail'), msg: z.string() });
