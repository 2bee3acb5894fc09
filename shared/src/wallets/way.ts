/**
 * A wallet's ways to pay (design 7.2, after Jeepay's and DaxPay's way codes): each way is declared
 * once — its name (the endpoint it answers at), the input it takes beyond `prepayId`, its answer's
 * `args`, an example, its words in both languages and what the payer does with it — and the
 * service's routes, `/openapi.json`, the Chinese reference, the typed client and the front ends are
 * all read from the declaration. One file per wallet (`social.ts`, `alipay.ts`) holds its ways, its
 * names and colour, and its payment parameters' wire shape.
 */
import { z } from 'zod';
import { PAY_VERSION, prepayIdSchema } from '../api/common';

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
}

/** Keeps a way's types. */
export const defineWay = <N extends string, I extends z.ZodRawShape, A extends z.ZodTypeAny>(w: WayDeclaration<N, I, A>): WayDeclaration<N, I, A> => w;

/** A way's own endpoint's body: `prepayId` and its input. */
export const wayRequestSchema = <I extends z.ZodRawShape>(w: { input: I }) => z.object({ prepayId: prepayIdSchema, ...w.input }).strict();

/** Every way's answer: `{version: 1, status: "success", args}`. */
export const wayAnswerSchema = <A extends z.ZodTypeAny>(args: A) => z.object({ version: z.literal(PAY_VERSION), status: z.literal('success'), args });

/** A text in both languages. */
export interface Words2 {
  en: string;
  'zh-CN': string;
}

/** A payment channel (4.7) of a wallet. */
export interface WalletChannel {
  names: Words2;
  paidWith: Words2;
  /** Its payment parameters (2.3): every field optional (a sub-merchant inherits its parent's). */
  parameters: z.ZodObject<z.ZodRawShape, 'strict'>;
}

export interface WalletDeclaration<
  W extends readonly WayDeclaration[] = readonly WayDeclaration[],
  C extends Record<string, WalletChannel> = Record<string, WalletChannel>,
> {
  /** The wallet's id in the kit's own words (`social`, `alipay`): its front-end file is `src/wallets/<id>.ts`. */
  id: string;
  /** The wallet's name as payers and cashiers know it. */
  names: Words2;
  /**
   * The payment channels (4.7) whose payments are made with this wallet, each with its name on
   * screens and its "paid with …" (a card paid in the social app's mini-program is a card).
   */
  channels: C;
  /** The wallet's brand colour on screens (its codes' frame, its badge). */
  color: string;
  /** The payment codes its app shows the payer (付款码), and the channel a code payment goes through. */
  paymentCode?: { pattern: RegExp; channel: string };
  ways: W;
}

export const defineWallet = <W extends readonly WayDeclaration[], C extends Record<string, WalletChannel>>(
  w: WalletDeclaration<W, C>,
): WalletDeclaration<W, C> => w;
