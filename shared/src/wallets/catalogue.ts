/**
 * What a list of wallets offers, read from their declarations (design 7.2): their ways (and the ways
 * of every wallet, the payer's payment code), their channels and those channels' payment parameters,
 * the wallet of a way, of a channel or of a payment code, and `POST /submerchant-pay/pay`'s body and
 * answer over their ways. The kit's own wallets make one (`KIT_WALLETS`, which the typed client and
 * the front ends read); a service makes one of the wallets its providers speak for (the composition
 * root's list: `services.wallets`), so that a wallet registered there is taken by the same schemas.
 */
import { z } from 'zod';
import { prepayIdSchema } from '../api/common';
import { codePay } from './code-pay';
import { wayAnswerSchema, type ChannelParameters, type WalletDeclaration, type WayDeclaration } from './way';

/** Ways of every wallet (the payer's payment code at the counter): each wallet takes part through what it declares. */
export const COMMON_WAYS = [codePay] as const;

export interface WalletCatalogue {
  /** The wallets, in the order they were listed. */
  readonly wallets: readonly WalletDeclaration[];
  /** Every way, in the order of the wallets and of their declarations, then the common ways. */
  readonly ways: readonly WayDeclaration[];
  /** The payment channels (4.7), each one a wallet's, in the wallets' order. */
  readonly channels: readonly [string, ...string[]];
  /** The way of that name, or undefined. */
  wayOf(name: string): WayDeclaration | undefined;
  /** The wallet that declares this way. */
  walletOfWay(name: string): WalletDeclaration | undefined;
  /** The wallet whose channel this is. */
  walletOfChannel(channel: string): WalletDeclaration | undefined;
  /** The wallet whose payment code this is (its digits tell: design 7.4), or undefined for a code of no wallet. */
  walletOfPaymentCode(code: string): WalletDeclaration | undefined;
  /** The payment codes taken, in words ("the social app's: 18 digits starting 10–15; …"), for a refusal. */
  paymentCodesInWords(): string;
  /** A channel's payment parameters (4.7), or undefined for a channel of no wallet here. */
  parametersOf(channel: string): ChannelParameters | undefined;
  /** Each way's own body on `POST /submerchant-pay/pay`: `way` names it. */
  readonly payRequestMembers: readonly z.AnyZodObject[];
  /** `POST /submerchant-pay/pay`'s body: one of the ways' (an unknown `way` is refused naming `way`). */
  readonly payRequestSchema: z.ZodTypeAny;
  /** `POST /submerchant-pay/pay`'s answer: that of the way asked for. */
  readonly payAnswerSchema: z.ZodTypeAny;
}

/** The catalogue of `wallets` (each once, in their order) and the common ways. */
export function walletCatalogue(wallets: readonly WalletDeclaration[]): WalletCatalogue {
  const ways: readonly WayDeclaration[] = [...wallets.flatMap((w): readonly WayDeclaration[] => w.ways), ...COMMON_WAYS];
  const names = ways.map((w) => w.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) throw new Error(`two ways are named ${twice.join(', ')}: a way's name is its endpoint`);
  const channels = wallets.flatMap((w) => Object.keys(w.channels));
  if (!channels.length) throw new Error('no wallet declares a payment channel');
  const payRequestMembers = ways.map((w) => z.object({ prepayId: prepayIdSchema, way: z.literal(w.name), ...w.input }).strict());
  return {
    wallets,
    ways,
    channels: channels as [string, ...string[]],
    wayOf: (name) => ways.find((w) => w.name === name),
    walletOfWay: (name) => wallets.find((w) => w.ways.some((x) => x.name === name)),
    walletOfChannel: (channel) => wallets.find((w) => Object.hasOwn(w.channels, channel)),
    walletOfPaymentCode: (code) => wallets.find((w) => w.paymentCode?.pattern.test(code)),
    paymentCodesInWords: () => wallets.flatMap((w): string[] => (w.paymentCode ? [`${w.names.en}'s: ${w.paymentCode.digits}`] : [])).join('; '),
    parametersOf: (channel) => wallets.find((w) => Object.hasOwn(w.parameters, channel))?.parameters[channel],
    payRequestMembers,
    payRequestSchema: z.discriminatedUnion('way', payRequestMembers as unknown as [z.AnyZodObject, z.AnyZodObject, ...z.AnyZodObject[]]),
    payAnswerSchema: z.union(ways.map((w) => wayAnswerSchema(w.args)) as unknown as [z.ZodTypeAny, z.ZodTypeAny, ...z.ZodTypeAny[]]),
  };
}
