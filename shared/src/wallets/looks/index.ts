/**
 * How the wallets look on screens — their names in both languages, their colour, their channels'
 * words, the user agent of their app's browser — without their wire shapes, so that the front
 * ends (the POS, the console, the payer page and the service's own pages) read them without zod.
 * A wallet's looks are one file here and one line in `WALLET_LOOKS`; its declaration
 * (`../<wallet>.ts`) carries them with its ways.
 */
import type { Lang } from '../../i18n';
import type { ChannelLooks, WalletLooks } from './looks';
import { socialLooks } from './social';
import { alipayLooks } from './alipay';

export const WALLET_LOOKS = [socialLooks, alipayLooks] as const;

/** The wallet of that id, or undefined. */
export const looksOfWallet = (id: string): WalletLooks | undefined => WALLET_LOOKS.find((w) => w.id === id);

/** The wallet whose channel this is, or undefined. */
export const walletLooksOfChannel = (channel: string): WalletLooks | undefined => WALLET_LOOKS.find((w) => Object.hasOwn(w.channels, channel));

/** A channel's words, or undefined for a channel of no wallet. */
export const looksOfChannel = (channel: string): ChannelLooks | undefined =>
  (walletLooksOfChannel(channel)?.channels as Record<string, ChannelLooks> | undefined)?.[channel];

/** The wallet whose app's browser sent this user agent, or undefined for any other browser. */
export const walletOfBrowser = (userAgent: string): WalletLooks | undefined => WALLET_LOOKS.find((w) => w.payerBrowser?.test(userAgent));

/**
 * Names as one list, the language's way: `A or B`, `A, B or C`; `A或B`, `A、B或C`. `or` is what
 * English puts before the last name (` or with ` for "with A or with B").
 */
export function orList(lang: Lang, names: readonly string[], or = ' or '): string {
  if (names.length < 2) return names.join('');
  const rest = names.slice(0, -1);
  const last = names[names.length - 1];
  return lang === 'zh-CN' ? `${rest.join('、')}或${last}` : `${rest.join(', ')}${or}${last}`;
}

/** Every wallet's name as one list ("the social app or Alipay"); `or` as for `orList`. */
export const everyWalletName = (lang: Lang, or?: string): string =>
  orList(
    lang,
    WALLET_LOOKS.map((w) => w.names[lang]),
    or,
  );

export * from './looks';
