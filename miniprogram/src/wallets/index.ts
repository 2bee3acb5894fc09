/**
 * The wallets with code of their own on the payer page (one file each) and the one the page pays
 * with where it runs: the build's platform picks the wallet's mini-program (`TARO_ENV`); the H5
 * build pays in a wallet's own browser with that wallet's page (its user agent, as the wallet's
 * looks declare it), anywhere else through the sandbox's stand-in.
 */
import { walletOfBrowser } from '@kit/shared/wallets/looks';
import { social } from './social';
import { alipay } from './alipay';
import type { PagePay, PageWallet } from './wallet';

export type { PagePay, PageWallet, PayOutcome } from './wallet';

/** The first is the kit's own mini-program's (the default build). */
const PAGE_WALLETS: readonly PageWallet[] = [social, alipay];

/** How the page pays on `platform` (`process.env.TARO_ENV`) in a browser that sent `userAgent`. */
export function pagePay(platform: string | undefined, userAgent: string): PagePay {
  if (platform !== 'h5') return (PAGE_WALLETS.find((w) => w.platform === platform) ?? PAGE_WALLETS[0]).mini;
  const inBrowser = walletOfBrowser(userAgent);
  const own = PAGE_WALLETS.find((w) => w.id === inBrowser?.id)?.browser;
  if (own) return own;
  const standIn = PAGE_WALLETS.find((w) => w.sandbox)?.sandbox;
  if (!standIn) throw new Error('no wallet pays on this page here');
  return standIn;
}

/** The marker a wallet's payment page comes back with (`<wallet>Return=1`, in the page's hash query, which the wallet leaves alone). */
export const returnMarker = (wallet: string): string => `${wallet}Return`;

/** The markers of every wallet whose payment page comes back. */
export const RETURN_MARKERS: readonly string[] = PAGE_WALLETS.filter((w) => w.browser).map((w) => returnMarker(w.id));
