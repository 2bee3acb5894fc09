/**
 * A wallet's ways to pay (design 7.2, after Jeepay's and DaxPay's way codes): each way is declared
 * once — its name (the endpoint it answers at), the input it takes beyond `prepayId`, its answer's
 * `args`, an example, its words in both languages and what the payer does with it — and the
 * service's routes, `/openapi.json`, the Chinese reference, the typed client and the front ends are
 * all read from the declaration. One file per wallet (`social.ts`, `alipay.ts`) holds its ways and its
 * payment parameters' wire shape; its names, colour and channels' words are its looks (`looks/<wallet>.ts`),
 * which the front ends read without zod.
 */
import { z } from 'zod';
import { PAY_VERSION, prepayIdSchema } from '../api/common';
import type { WalletLooks } from './looks/looks';

/**
 * How the payer pays, which is what the kit places at the platform: a code the payer scans (`scan`),
 * the social app's mini-program (`miniProgram`), an app (`app`), the wallet's own mini-program
 * (`walletMini`), a page in the wallet's browser (`wap`), the payer's payment code scanned at the counter (`code`).
 */
export const WAY_FLOWS = ['scan', 'miniProgram', 'app', 'walletMini', 'wap', 'code'] as const;
export type WayFlow = (typeof WAY_FLOWS)[number];

/** What the payer does with a way's `args` (the front ends and the docs say it in words). */
export type PayerStep =
  /** `args` holds a code's content: the merchant shows it as a QR code, the payer scans it with the wallet. */
  | 'scanCode'
  /** The merchant's backend hands `args` to its mini-program, which calls the wallet's payment call with them. */
  | 'miniProgramCall'
  /** The merchant's app hands `args` to the wallet's app SDK. */
  | 'appSdk'
  /** The payer's browser inside the wallet opens the page `args` names. */
  | 'openPage'
  /** The payer shows the wallet's payment code; the cashier scans it (`args` says paid or waiting for the payer's confirmation). */
  | 'showCode';

export interface WayWords {
  /** One line: what the way gives (the reference's summary). */
  summary: string;
  /** More, for the reference. */
  description?: string;
}

export interface WayDeclaration<N extends string = string, I extends z.ZodRawShape = z.ZodRawShape, A extends z.ZodTypeAny = z.ZodTypeAny> {
  /** The way's name: the endpoint `POST /submerchant-pay/<name>` and `way` of `POST /submerchant-pay/pay`. */
  name: N;
  /** The specification section the way belongs to (4.3–4.5), or the design's (6.3 for Alipay). */
  section: string;
  flow: WayFlow;
  /**
   * Which provider serves it: `parameters` (4.3–4.5: the merchant's payment parameters pick among
   * the providers of the flow, the social platform by default), `wallet` (the wallet's own channel,
   * asked for by name) or `code` (the wallet whose `paymentCode` the payer's code matches).
   */
  chosenBy: 'parameters' | 'wallet' | 'code';
  /** What the way takes beyond `prepayId`. */
  input: I;
  /** The answer's `args`. */
  args: A;
  /** What the payer's side of the kit needs from the input: the payer's open id, where a page returns to, profit sharing asked for (4.5). */
  payer(input: z.output<z.ZodObject<I>>): { openId?: string; returnUrl?: string; enableProfitSharing?: boolean; authCode?: string; deviceId?: string };
  payerStep: PayerStep;
  example: { input: z.input<z.ZodObject<I>>; args: z.output<A> };
  words: { en: WayWords; 'zh-CN': WayWords };
  /** Failures the way may answer beyond every way's. */
  errors?: readonly string[];
  /**
   * How the kit's payer page (the mini-program and its H5 build) pays with this way through
   * `POST /mp/api/pay`, for the ways it pays with: the way's input from what the page gives. For a
   * mini-program (`miniProgram`, `walletMini`) the page sends the login code of its mini-program,
   * which the router exchanges for the payer's open id (the kit's mini-program login, or the
   * wallet's own: its provider's `payerLogin`); for a page in the wallet's browser (`wap`), where
   * the wallet's payment page sends the payer back. `alias` is the way's own route under `/mp/api`
   * from before `/mp/api/pay` (kept: it is documented and used), with the name its login code has there.
   */
  page?: {
    input(payer: { openId?: string; returnUrl?: string }): z.input<z.ZodObject<I>>;
    alias?: { path: string; codeField?: string };
  };
}

/** Keeps a way's types. */
export const defineWay = <N extends string, I extends z.ZodRawShape, A extends z.ZodTypeAny>(w: WayDeclaration<N, I, A>): WayDeclaration<N, I, A> => w;

/** A way's own endpoint's body: `prepayId` and its input. */
export const wayRequestSchema = <I extends z.ZodRawShape>(w: { input: I }) => z.object({ prepayId: prepayIdSchema, ...w.input }).strict();

/** Every way's answer: `{version: 1, status: "success", args}`. */
export const wayAnswerSchema = <A extends z.ZodTypeAny>(args: A) => z.object({ version: z.literal(PAY_VERSION), status: z.literal('success'), args });

/** A payment channel's payment parameters (2.3): every field optional (a sub-merchant inherits its parent's). */
export type ChannelParameters = z.ZodObject<z.ZodRawShape, 'strict'>;

/**
 * A wallet: how it looks on screens (`looks/<wallet>.ts`: its names, colour, channels' words and its
 * app's browser), its channels' payment parameters, its payment codes and its ways.
 */
export interface WalletDeclaration<
  W extends readonly WayDeclaration[] = readonly WayDeclaration[],
  C extends string = string,
  P extends Record<C, ChannelParameters> = Record<C, ChannelParameters>,
> extends WalletLooks<C> {
  /** Each channel's payment parameters (4.7). */
  parameters: P;
  /**
   * The payment codes its app shows the payer (付款码): their digits, the channel a code payment goes
   * through, and the digits in words (for a refusal that says which codes the kit takes).
   */
  paymentCode?: { pattern: RegExp; channel: C; digits: string };
  ways: W;
}

/** A wallet of its looks and the rest. */
export const defineWallet = <W extends readonly WayDeclaration[], C extends string, P extends Record<C, ChannelParameters>>(
  looks: WalletLooks<C>,
  rest: { parameters: P; paymentCode?: { pattern: RegExp; channel: NoInfer<C>; digits: string }; ways: W },
): WalletDeclaration<W, C, P> => ({ ...looks, ...rest });
