/**
 * The payer mini-program's own API (`/mp/api/*`): what the page sends to the thin router that
 * holds the mini-program secret, exchanges login codes and signs calls. Request schemas are zod
 * (the router validates with them); the mini-program imports only the types, so zod stays out of
 * its bundle.
 */
import { z } from 'zod';
import type { MiniProgramPayArgs } from './payment';
import type { PrepayDetail } from './prepay';
import type { OrderItem } from '../order-items';

const prepayId = z.string().regex(/^[0-9A-Za-z]{1,64}$/, 'must be a prepay id (letters and digits)');

export const mpOrderParamsSchema = z.object({ prepayId });
/** `wait=1` holds the answer like 4.2 `waitForFinish=1`. */
export const mpOrderQuerySchema = z.object({ wait: z.enum(['0', '1']).optional().default('0') }).strict();

/**
 * An order as the payer page shows it: the 4.2 detail as it came, plus what the page needs to be
 * trusted at a glance: the order number and, when `extraInfo` carries a recognisable list
 * (`order-items.ts`), what was bought.
 */
export type MpOrder = PrepayDetail & {
  prepayId: string;
  items?: OrderItem[];
  /** Recognised items beyond those listed. */
  itemsMore?: number;
  note?: string;
};

/** "Pay": the login code of `wx.login` (or the sandbox's stand-in) and the order. */
export const mpPayRequestSchema = z
  .object({
    prepayId,
    code: z
      .string()
      .min(1, 'must not be empty')
      .max(256)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII'),
  })
  .strict();
export type MpPayRequest = z.infer<typeof mpPayRequestSchema>;

/**
 * The router's answer to "pay": 4.4's `status` and `args` as they came. Anything but `success`
 * means the payment expired and the payer must scan again (specification section 7).
 */
export type MpPayResponse = { version: 1; status: 'success'; args: MiniProgramPayArgs } | { version: 1; status: string; error?: string; msg?: string };
