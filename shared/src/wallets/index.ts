/**
 * Every wallet the kit speaks for, and the ways to pay they declare (design 7.2). A wallet is one
 * file here and one line in `WALLETS`, and its looks one file in `looks/` and one line in
 * `WALLET_LOOKS`; the service's routes, its reference and the typed client read the ways from this
 * list, the front ends the looks.
 */
import { z } from 'zod';
import { prepayIdSchema } from '../api/common';
import { socialWallet } from './social';
import { alipayWallet } from './alipay';
import { codePay } from './code-pay';
import { wayAnswerSchema, type WalletDeclaration, type WayDeclaration } from './way';

export const WALLETS = [socialWallet, alipayWallet] as const;

/** Ways of every wallet (the payer's payment code at the counter): each wallet takes part through what it declares. */
export const COMMON_WAYS = [codePay] as const;

type AnyWallet = (typeof WALLETS)[number];
type AnyWay = AnyWallet['ways'][number] | (typeof COMMON_WAYS)[number];
export type WayName = AnyWay['name'];
export type WayOf<N extends WayName> = Extract<AnyWay, { name: N }>;
/** What `POST /submerchant-pay/<way>` takes beyond `prepayId`. */
export type WayInput<N extends WayName> = z.input<z.ZodObject<WayOf<N>['input']>>;
/** A way's answer `args`. */
export type WayArgs<N extends WayName> = z.output<WayOf<N>['args']>;
/** `POST /submerchant-pay/pay`'s body for each way. */
export type PayRequest = { [N in WayName]: { prepayId: string; way: N } & WayInput<N> }[WayName];
export type PayAnswer<N extends WayName> = { version: 1; status: 'success'; args: WayArgs<N> };

/** The payment channels (4.7), each one a wallet's. */
export type PaymentChannel = { [W in AnyWallet as W['id']]: keyof W['channels'] & string }[AnyWallet['id']];

/** Every way, in the order of the wallets and of their declarations. */
export const WAYS: readonly WayDeclaration[] = [...WALLETS.flatMap((w): readonly WayDeclaration[] => w.ways), ...COMMON_WAYS];

/** The payment codes the kit takes, in words ("the social app's: 18 digits starting 10–15; …"), for a refusal. */
export const paymentCodesInWords = (): string =>
  WALLETS.flatMap((w): string[] => (w.paymentCode ? [`${w.names.en}'s: ${w.paymentCode.digits}`] : [])).join('; ');

/** The wallet whose payment code this is (its digits tell: design 7.4), or undefined for a code of no wallet. */
export const walletOfPaymentCode = (code: string): WalletDeclaration | undefined => WALLETS.find((w) => w.paymentCode?.pattern.test(code));

export const WAY_NAMES = WAYS.map((w) => w.name) as [WayName, ...WayName[]];

/** The way of that name, or undefined. */
export const wayOf = (name: string): WayDeclaration | undefined => WAYS.find((w) => w.name === name);

/** The wallet whose channel this is. */
export const walletOfChannel = (channel: string): WalletDeclaration | undefined => WALLETS.find((w) => Object.hasOwn(w.channels, channel));

/** The wallet that declares this way. */
export const walletOfWay = (name: string): WalletDeclaration | undefined => WALLETS.find((w) => w.ways.some((x) => x.name === name));

/** The ways the kit's payer page pays with (`POST /mp/api/pay`): those that say how (`page`). */
export const PAGE_WAYS: readonly WayDeclaration[] = WAYS.filter((w) => w.page);

/** Each way's own body on `POST /submerchant-pay/pay`: `way` names it. */
export const payRequestMembers = WAYS.map((w) => z.object({ prepayId: prepayIdSchema, way: z.literal(w.name), ...w.input }).strict());

/** `POST /submerchant-pay/pay`'s body: one of the ways' (an unknown `way` is refused naming `way`). */
export const payRequestSchema = z.discriminatedUnion('way', payRequestMembers as unknown as [z.AnyZodObject, z.AnyZodObject, ...z.AnyZodObject[]]);

/** `POST /submerchant-pay/pay`'s answer: that of the way asked for. */
export const payAnswerSchema = z.union(WAYS.map((w) => wayAnswerSchema(w.args)) as unknown as [z.ZodTypeAny, z.ZodTypeAny, ...z.ZodTypeAny[]]);

export * from './way';
export * from './parameters';
export * from './social';
export * from './alipay';
export * from './code-pay';
export * from './looks';
