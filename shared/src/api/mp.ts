/**
 * The payer mini-program's own API (`/mp/api/*`): what the page sends to the thin router that
 * holds the mini-program secret, exchanges login codes and signs calls. Request schemas are zod
 * (the router validates with them); the mini-program imports only the types, so zod stays out of
 * its bundle.
 */
import { z } from 'zod';
import { returnUrlSchema, type AlipayMiniArgs, type AlipayWapArgs, type MiniProgramPayArgs } from '../wallets';
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

/** The login code of the mini-program (`wx.login`'s, `my.getAuthCode`'s): printable ASCII. */
const loginCode = z
  .string()
  .min(1, 'must not be empty')
  .max(256)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII');

/**
 * "Pay" in the Alipay build of the mini-program (`POST /mp/api/alipay/pay`): the order and the
 * `authCode` of `my.getAuthCode` (scope `auth_base`, or the sandbox's `/sandbox/alipay/auth-code`).
 */
export const mpAlipayPayRequestSchema = z.object({ prepayId, authCode: loginCode }).strict();
export type MpAlipayPayRequest = z.infer<typeof mpAlipayPayRequestSchema>;

/** The router's answer: `args.tradeNO` for `my.tradePay({tradeNO})`; anything but `success` means scan again, as for `/mp/api/pay`. */
export type MpAlipayPayResponse = { version: 1; status: 'success'; args: AlipayMiniArgs } | { version: 1; status: string; error?: string; msg?: string };

/**
 * The payer page in Alipay's browser (`POST /mp/api/alipay/wap`): the order and where Alipay's
 * page sends the payer back (after paying, or on leaving it).
 */
export const mpAlipayWapRequestSchema = z.object({ prepayId, returnUrl: returnUrlSchema.optional() }).strict();
export type MpAlipayWapRequest = z.infer<typeof mpAlipayWapRequestSchema>;

/** The router's answer: `args.url`, the Alipay payment page to open (`location.href = args.url`). */
export type MpAlipayWapResponse = { version: 1; status: 'success'; args: AlipayWapArgs } | { version: 1; status: string; error?: string; msg?: string };
