/**
 * The payer mini-program's own API (`/mp/api/*`): what the page sends to the thin router that
 * holds the mini-program secret, exchanges login codes and signs calls. Request schemas are zod
 * (the router validates with them); the mini-program imports only the types, so zod stays out of
 * its bundle.
 */
import { z } from 'zod';
import { PAGE_WAYS, returnUrlSchema, type WayArgs, type WayDeclaration, type WayName } from '../wallets';
import type { PrepayDetail } from './prepay';
import type { PaymentChannel } from './merchant';
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
  /** The wallet that paid the order (4.7 channel names), once paid: a payer who paid with another was second. */
  paymentChannel?: PaymentChannel;
  /** Payments made after the order was paid (docs/payments.md, "Paid once"), each refunded automatically; absent when none. */
  secondPayments?: MpSecondPayment[];
};

/** A second payment of an order and where its automatic refund is. */
export interface MpSecondPayment {
  paymentChannel: PaymentChannel;
  amount: string;
  /** `refunding` until the platform confirms it; `failed` when the platform refused it (the merchant refunds by hand). */
  refund: 'refunding' | 'refunded' | 'failed';
}

/** The login code of a mini-program (`wx.login`'s, `my.getAuthCode`'s): printable ASCII. */
const loginCode = z
  .string()
  .min(1, 'must not be empty')
  .max(256)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII');

/**
 * What the page sends for a way beside the order, by the way's flow: a mini-program's login code
 * (`code`, or the name its own route gave it), or where the wallet's payment page sends the payer
 * back (`returnUrl`, a page in the wallet's browser).
 */
const pageInput = (way: WayDeclaration, codeField = 'code'): z.ZodRawShape =>
  way.flow === 'wap' ? { returnUrl: returnUrlSchema.optional() } : { [codeField]: loginCode };

/** Each way's body on `POST /mp/api/pay`, in the order of `PAGE_WAYS`. */
export function mpPayRequestMembers(): z.AnyZodObject[] {
  return PAGE_WAYS.map((w) => z.object({ prepayId, way: z.literal(w.name), ...pageInput(w) }).strict());
}

/** The way the page paid with before it named one: the kit's mini-program's (4.4). */
export const MP_DEFAULT_WAY = PAGE_WAYS.find((w) => w.flow === 'miniProgram')!.name as WayName;

/**
 * "Pay" (`POST /mp/api/pay`): the order, the way the page pays with (one its wallet declares for
 * the payer page: `PAGE_WAYS`; without `way`, the kit's mini-program's, as before) and what that
 * way takes from the page: the login code of the page's mini-program (`code`: `wx.login`'s,
 * `my.getAuthCode`'s or the sandbox's stand-in), or for a page in the wallet's browser where its
 * payment page sends the payer back (`returnUrl`). An unknown `way` is refused naming `way`.
 */
export const mpPayRequestSchema = z.preprocess(
  (body) => (body !== null && typeof body === 'object' && !Array.isArray(body) && !('way' in body) ? { ...body, way: MP_DEFAULT_WAY } : body),
  z.discriminatedUnion('way', mpPayRequestMembers() as unknown as [z.ZodDiscriminatedUnionOption<'way'>, ...z.ZodDiscriminatedUnionOption<'way'>[]]),
);
export interface MpPayRequest {
  prepayId: string;
  way?: WayName;
  code?: string;
  returnUrl?: string;
}

/**
 * A way's own route under `/mp/api` from before `/mp/api/pay` (`page.alias` of its declaration):
 * the same call with the way fixed, its login code under the name it had there.
 */
export interface MpPayAlias {
  path: string;
  way: WayName;
  codeField: string;
  body: z.ZodObject<z.ZodRawShape>;
}
export const MP_PAY_ALIASES: readonly MpPayAlias[] = PAGE_WAYS.flatMap((w) => {
  const alias = w.page?.alias;
  if (!alias) return [];
  const codeField = alias.codeField ?? 'code';
  return [{ path: alias.path, way: w.name as WayName, codeField, body: z.object({ prepayId, ...pageInput(w, codeField) }).strict() }];
});

/**
 * The router's answer to "pay": the way's `status` and `args` as they came (`args` for the page's
 * payment call, or the page to leave for). Anything but `success` means the order can no longer be
 * paid this way and the payer must scan again (specification section 7).
 */
export type MpPayResponse<N extends WayName = WayName> =
  { version: 1; status: 'success'; args: WayArgs<N> } | { version: 1; status: string; error?: string; msg?: string };
