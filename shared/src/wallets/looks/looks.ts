/**
 * What a wallet's looks are made of (browser-safe: no zod, so a front end imports them alone).
 */

/** A text in both languages. */
export interface Words2 {
  en: string;
  'zh-CN': string;
}

/** How a payment channel (4.7) of a wallet is named on screens. */
export interface ChannelLooks {
  /** On a chip or in a list of orders (the POS): `Social app`, `Card`. */
  names: Words2;
  /** Where the merchant's accounts are listed (the console's orders, bills and reconciliation): `Social app payments`. */
  accountNames: Words2;
  /** In a sentence to the payer ("… with {wallet}"): `the social app`, `a bank card`. */
  payerNames: Words2;
  /** What the cashier is told once a payment went through it: `Paid with the social app`, `Paid by card`. */
  paidWith: Words2;
}

/** How a wallet looks to payers and cashiers. */
export interface WalletLooks<C extends string = string> {
  /** The wallet's id in the kit's own words (`social`, `alipay`): its files are `<id>.ts`. */
  id: string;
  /** The wallet's name as payers know it, in a sentence ("scan with {wallet}"). */
  names: Words2;
  /** Its brand colour on screens (its badge, the "paid with" line): the front ends set it as the CSS custom property `--wallet`. */
  color: string;
  /** The user agent of its app's browser, for a page that pays differently there (the POS's one code `/p/<id>`, the payer page's H5 build). */
  payerBrowser?: RegExp;
  /**
   * The payment channels (4.7) whose payments are made with this wallet, each with its words
   * (a card paid in the social app's mini-program is a card).
   */
  channels: Record<C, ChannelLooks>;
}

/** Keeps a wallet's looks' types (its channels' names). */
export const defineLooks = <C extends string>(looks: WalletLooks<C>): WalletLooks<C> => looks;
