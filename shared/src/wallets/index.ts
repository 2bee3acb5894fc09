/**
 * Every wallet the kit speaks for, and the ways to pay they declare (design 7.2). A wallet is one
 * file here and one line in `WALLETS`, and its looks one file in `looks/` and one line in
 * `WALLET_LOOKS`; the typed client and the front ends read the ways from this list (`KIT_WALLETS`),
 * the front ends the looks. The service reads the wallets its providers speak for
 * (`walletCatalogue`, `catalogue.ts`): these, and any the composition root was given.
 */
import type { z } from 'zod';
import { socialWallet } from './social';
import { alipayWallet } from './alipay';
import { COMMON_WAYS, walletCatalogue } from './catalogue';
import type { WalletDeclaration, WayDeclaration } from './way';

export const WALLETS = [socialWallet, alipayWallet] as const;

/** What the kit's own wallets offer (their ways, channels and parameters, the pay call's schemas). */
export const KIT_WALLETS = walletCatalogue(WALLETS);

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

/** A way's request on `POST /submerchant-pay/pay` (`{prepayId, way, …its input}`), for a way of any wallet. */
export type PayRequestOf<W extends WayDeclaration> =
  W extends WayDeclaration<infer N, infer I> ? { prepayId: string; way: N } & z.input<z.ZodObject<I>> : never;
/** A way's answer, for a way of any wallet. */
export type PayAnswerOf<W extends WayDeclaration> =
  W extends WayDeclaration<string, z.ZodRawShape, infer A> ? { version: 1; status: 'success'; args: z.output<A> } : never;

/** Every way, in the order of the wallets and of their declarations. */
export const WAYS: readonly WayDeclaration[] = KIT_WALLETS.ways;

/** The payment codes the kit takes, in words ("the social app's: 18 digits starting 10–15; …"), for a refusal. */
export const paymentCodesInWords = (): string => KIT_WALLETS.paymentCodesInWords();

/** The wallet whose payment code this is (its digits tell: design 7.4), or undefined for a code of no wallet. */
export const walletOfPaymentCode = (code: string): WalletDeclaration | undefined => KIT_WALLETS.walletOfPaymentCode(code);

export const WAY_NAMES = WAYS.map((w) => w.name) as [WayName, ...WayName[]];

/** The way of that name, or undefined. */
export const wayOf = (name: string): WayDeclaration | undefined => KIT_WALLETS.wayOf(name);

/** The wallet whose channel this is. */
export const walletOfChannel = (channel: string): WalletDeclaration | undefined => KIT_WALLETS.walletOfChannel(channel);

/** The wallet that declares this way. */
export const walletOfWay = (name: string): WalletDeclaration | undefined => KIT_WALLETS.walletOfWay(name);

/** The ways the kit's payer page pays with (`POST /mp/api/pay`): those that say how (`page`). */
export const PAGE_WAYS: readonly WayDeclaration[] = WAYS.filter((w) => w.page);

/** Each way's own body on `POST /submerchant-pay/pay`: `way` names it. */
export const payRequestMembers = KIT_WALLETS.payRequestMembers;

/** `POST /submerchant-pay/pay`'s body: one of the ways' (an unknown `way` is refused naming `way`). */
export const payRequestSchema = KIT_WALLETS.payRequestSchema;

/** `POST /submerchant-pay/pay`'s answer: that of the way asked for. */
export const payAnswerSchema = KIT_WALLETS.payAnswerSchema;

export * from './way';
export * from './parameters';
export * from './social';
export * from './alipay';
export * from './code-pay';
export * from './catalogue';
export * from './looks';
