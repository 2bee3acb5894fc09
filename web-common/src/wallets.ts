/**
 * The wallets on the browser screens, as their looks declare them (`@kit/shared/wallets/looks`):
 * a channel's words in the language on screen, and its wallet's colour as the CSS custom property
 * `--wallet`, which the screens' styles use for what names a wallet (a badge, a "paid with" line).
 */
import type { CSSProperties } from 'react';
import type { Lang } from '@kit/shared/i18n';
import { looksOfChannel, looksOfWallet, walletLooksOfChannel, type ChannelLooks } from '@kit/shared/wallets/looks';

export { everyWalletName } from '@kit/shared/wallets/looks';

/** Which of a channel's words: its name on a chip, in the merchant's accounts, to the payer, or "paid with …". */
export type ChannelWords = keyof ChannelLooks;

/** A channel's words in `lang`; a channel no wallet declares is shown as it came. */
export const channelWords = (lang: Lang, channel: string, words: ChannelWords): string => looksOfChannel(channel)?.[words][lang] ?? channel;

/** A wallet's name in `lang` ("the social app"), by its id; an unknown id as it came. */
export const walletName = (lang: Lang, id: string): string => looksOfWallet(id)?.names[lang] ?? id;

/** The style that gives an element the colour of the wallet of `channel` (`--wallet`); none for a channel no wallet declares. */
export function walletStyle(channel: string): CSSProperties | undefined {
  const color = walletLooksOfChannel(channel)?.color;
  return color ? ({ '--wallet': color } as CSSProperties) : undefined;
}
