/**
 * What the payer page needs of a wallet whose platform takes code of its own (one file per wallet
 * here, `<wallet>.ts`, its id that of `@kit/shared/wallets`): how its mini-program logs the payer
 * in and pays the way's `args`, and, for the H5 build, how the page pays in the wallet's own
 * browser or, in development, through the sandbox's stand-in. `pay-flow.ts` names no wallet: it
 * asks `index.ts` for how to pay where the page runs.
 */
import type { WayName } from '@kit/shared/wallets';

/** What a platform's payment call came to: paid (or being processed: the order will say), cancelled by the payer, or failed. */
export type PayOutcome = 'paid' | 'cancelled' | 'failed';

interface PayingWith {
  /** The wallet's id (`@kit/shared/wallets`): a payment through another wallet's channel was not this page's. */
  wallet: string;
  /** The way the router pays with (`POST /mp/api/pay {way}`): one its declaration says the payer page pays with. */
  way: WayName;
  /** The login code the router exchanges for the payer's open id, for a mini-program's way. */
  loginCode?(): Promise<string>;
}

/**
 * How the page pays where it runs: in a mini-program, the platform's payment call with the way's
 * `args` (`call`); in a browser, a page to leave for that comes back to this one (`leave`: the
 * wallet's payment page, or the sandbox's cashier), `returns` when the router must be told where to.
 */
export type PagePay =
  | (PayingWith & { kind: 'call'; call(args: unknown): Promise<PayOutcome> })
  | (PayingWith & { kind: 'leave'; returns: boolean; leave(args: unknown, back: string): string });

export interface PageWallet {
  /** The wallet's id in `@kit/shared/wallets` (its names, channels, the user agent of its browser). */
  id: string;
  /** The Taro platform (`TARO_ENV`) whose build is this wallet's mini-program. */
  platform: string;
  /** Its mini-program: the login, the way, the payment call. */
  mini: PagePay & { kind: 'call' };
  /** The H5 page in the wallet's own browser (its looks' `payerBrowser`): the wallet's payment page. */
  browser?: PagePay & { kind: 'leave' };
  /** The H5 page anywhere else, in development: the sandbox's stand-ins for this wallet's login and payment call. */
  sandbox?: PagePay & { kind: 'leave' };
}
