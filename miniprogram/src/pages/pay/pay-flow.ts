/**
 * The payment page's logic, free of React so it can be tested with Taro mocked:
 * launch options → prepay id → order (4.2) → pay → wait for the result (the 4.2 long-poll loop) → success.
 * How it pays depends on where it runs (`payWay`): in the social app, login code → router → 4.4 args →
 * the payment call; in the Alipay mini-program, `my.getAuthCode` → router → `my.tradePay`; as the H5
 * page in Alipay's browser, Alipay's payment page (`/mp/api/alipay/wap`); as the H5 page anywhere
 * else, the sandbox's social cashier.
 */
import Taro from '@tarojs/taro';
import { parseScene } from '@kit/shared/scene';
import { waitLoop } from '@kit/shared/long-poll';
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import { formatMoneyText } from '@kit/shared/money-format';
import type { MpOrder } from '@kit/shared/api/mp';
import type { PaymentChannel } from '@kit/shared/api/merchant';
import * as api from '../../lib/api';
import type { Problem } from '../../i18n/i18n';

export type Notice = { kind: 'cancelled' } | { kind: 'failed'; problem: Problem };

/** What the page shows. Only `ready` has an enabled pay button. */
export type PayView =
  | { kind: 'loading' }
  /** No prepay id in the code, or the order does not exist (4.2 not found). */
  | { kind: 'missing' }
  /** The order is `cancel`: it expired (or was closed) unpaid and must not be used. */
  | { kind: 'expired'; order: MpOrder }
  /** Opened an order that was paid before: nothing more to pay. */
  | { kind: 'paid'; order: MpOrder }
  /** Opened an order that was paid and then refunded. */
  | { kind: 'refunded'; order: MpOrder }
  | { kind: 'ready'; order: MpOrder; notice?: Notice }
  /** Getting the login code and the payment arguments, then paying (or leaving for the cashier). */
  | { kind: 'paying'; order: MpOrder }
  /** Paid on the phone; waiting for the service to confirm (4.2 waitForFinish loop). */
  | { kind: 'waiting'; order: MpOrder }
  /** Paid in this visit: the receipt. */
  | { kind: 'success'; order: MpOrder }
  /**
   * Paid in this visit, but the order had been paid with the other wallet before this payment went
   * through: this one is a second payment, refunded automatically (docs/payments.md, "Paid once").
   */
  | { kind: 'paidTwice'; order: MpOrder }
  /** 4.4 did not answer `success`: the payment expired, the payer must scan again. */
  | { kind: 'rescan'; order: MpOrder }
  /** The order could not be read (network or server failure); a retry is offered. */
  | { kind: 'error'; problem: Problem };

export type LaunchOptions = Record<string, string | undefined>;

/** The POS's one code for any wallet: `<service>/p/<prepayId>`. */
const PAYER_LINK = /\/p\/([0-9A-Za-z]{1,64})(?:[/?#]|$)/;

/**
 * The prepay id from a mini-program code (`scene`, URL-encoded) or a plain QR link (the whole URL:
 * `q` in the social app, `qrCode` in Alipay's), whether the link holds the scene or is the one code
 * for any wallet (`/p/<prepayId>`).
 */
export function prepayIdFromOptions(options: LaunchOptions): string | null {
  for (const key of ['scene', 'q', 'qrCode'] as const) {
    const value = options[key];
    if (typeof value !== 'string' || value.length === 0) continue;
    const id = parseScene(value) ?? parseScene(safeDecode(value)) ?? (key === 'scene' ? null : PAYER_LINK.exec(safeDecode(value))?.[1]);
    if (id) return id;
  }
  return null;
}

/**
 * How this page pays: `social` (the social app's mini-program: its payment call), `alipayMini` (the
 * Alipay build: `my.tradePay`), `alipayWap` (the H5 page in Alipay's browser, whose user agent says
 * `AlipayClient`: Alipay's payment page) or `sandboxSocial` (the H5 page anywhere else, the social app's
 * browser included: the sandbox's cashier stands in for the social payment, as before).
 */
export type PayWay = 'social' | 'alipayMini' | 'alipayWap' | 'sandboxSocial';

export function payWay(taroEnv: string | undefined, userAgent: string): PayWay {
  if (taroEnv === 'alipay') return 'alipayMini';
  if (taroEnv !== 'h5') return 'social';
  return /\bAlipayClient\b/i.test(userAgent) ? 'alipayWap' : 'sandboxSocial';
}

/** The wallet a page pays with, and the one a channel belongs to. */
export type Wallet = 'social' | 'alipay';
export const walletOfWay = (way: PayWay): Wallet => (way === 'alipayMini' || way === 'alipayWap' ? 'alipay' : 'social');
export const walletOfChannel = (channel: PaymentChannel): Wallet => (channel === 'Alipay' ? 'alipay' : 'social');

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** "1000000" → "¥1,000,000.00": the shared money format; text that is no amount is shown as received. */
export function displayAmount(totalAmount: string): string {
  return formatMoneyText(totalAmount);
}

/** The marker of a return from Alipay's payment page (in the page's own hash query, which Alipay leaves alone). */
const ALIPAY_RETURN = 'alipayReturn';

/** The URL the cashier returns to: this page without a previous `sandboxResult` (or Alipay return marker). */
export function returnUrl(href: string): string {
  const hashAt = href.indexOf('#');
  const [base, hash] = hashAt < 0 ? [href, ''] : [href.slice(0, hashAt), href.slice(hashAt)];
  const strip = (part: string) => {
    const q = part.indexOf('?');
    if (q < 0) return part;
    const kept = part
      .slice(q + 1)
      .split('&')
      .filter((p) => p && !p.startsWith('sandboxResult=') && !p.startsWith(`${ALIPAY_RETURN}=`));
    return kept.length ? `${part.slice(0, q)}?${kept.join('&')}` : part.slice(0, q);
  };
  return hash ? `${base}${strip(hash)}` : strip(base);
}

/**
 * Where Alipay's payment page sends the payer back: this page, marked as a return. Alipay adds its
 * own parameters to the query before the `#`; the page's hash router reads only what follows it.
 */
export function alipayReturnUrl(href: string): string {
  const url = returnUrl(href);
  const hashAt = url.indexOf('#');
  const part = hashAt < 0 ? url : url.slice(hashAt);
  return `${url}${part.includes('?') ? '&' : '?'}${ALIPAY_RETURN}=1`;
}

/** `my.tradePay`'s result codes: paid, or being processed / unknown (the order's state will say). */
const TRADE_PAID_OR_PENDING = new Set(['9000', '8000', '6004']);
const TRADE_CANCELLED = '6001';

/** The Alipay mini-program's calls (Taro's Alipay platform; `getAuthCode` is not in Taro's common typings). */
interface AlipayCalls {
  getAuthCode(opts: { scopes: string }): Promise<{ authCode?: string; code?: string }>;
  tradePay(opts: { tradeNO: string }): Promise<{ resultCode?: string; response?: { resultCode?: string } }>;
}
const alipay = () => Taro as unknown as AlipayCalls;

/**
 * The page for an order that is not `active` when opened or when the wait ends. Back from paying with
 * `mine` an order another wallet paid: this payment came second (both went through), and is refunded.
 */
function closedView(order: MpOrder, justPaid: boolean, mine: Wallet): PayView {
  if (order.status === 'finish' && justPaid && order.paymentChannel && walletOfChannel(order.paymentChannel) !== mine) return { kind: 'paidTwice', order };
  if (order.status === 'finish') return { kind: justPaid ? 'success' : 'paid', order };
  if (order.status === 'refunded') return { kind: 'refunded', order };
  return { kind: 'expired', order };
}

const USER_KEY = 'kit-payer-user';
/** How often, and how many times, the page of a second payment reads the order again until its refund ends. */
const SECOND_REFRESH_MS = 3_000;
const SECOND_REFRESHES = 100;

export interface PayFlowDeps {
  onChange: (view: PayView) => void;
  /** H5: leaves the page for the sandbox cashier. */
  leave?: (url: string) => void;
  /** H5: the page's own URL (the cashier comes back to it). */
  href?: () => string;
  /** H5: the browser's user agent (Alipay's browser pays with Alipay). */
  userAgent?: () => string;
}

export class PayFlow {
  private view: PayView = { kind: 'loading' };
  private prepayId: string | null = null;
  private readonly stopped = new AbortController();

  constructor(private readonly deps: PayFlowDeps) {}

  get current(): PayView {
    return this.view;
  }

  private get isH5(): boolean {
    return process.env.TARO_ENV === 'h5';
  }

  private get way(): PayWay {
    const ua = this.deps.userAgent?.() ?? (typeof navigator === 'undefined' ? '' : navigator.userAgent);
    return payWay(process.env.TARO_ENV, ua);
  }

  /** The wallet this page pays with. */
  private get wallet(): Wallet {
    return walletOfWay(this.way);
  }

  private get href(): string {
    return this.deps.href?.() ?? window.location.href;
  }

  private leave(url: string): void {
    (this.deps.leave ?? ((to: string) => window.location.assign(to)))(url);
  }

  private show(view: PayView): void {
    if (this.stopped.signal.aborted) return;
    this.view = view;
    this.deps.onChange(view);
  }

  /** Page load: reads the id, the order and, on H5, what the sandbox cashier reported on return. */
  async start(options: LaunchOptions): Promise<void> {
    this.prepayId = prepayIdFromOptions(options);
    if (!this.prepayId) return this.show({ kind: 'missing' });
    this.show({ kind: 'loading' });
    const order = await this.load();
    if (!order) return;
    const result = options.sandboxResult;
    const back = result === 'paid' || options[ALIPAY_RETURN] === '1';
    if (back && (order.status === 'active' || order.status === 'finish')) return this.waitForResult(order);
    if (order.status !== 'active') return this.show(closedView(order, false, this.wallet));
    this.show({ kind: 'ready', order, notice: result === 'cancel' ? { kind: 'cancelled' } : undefined });
  }

  /** Reads the order once; shows `missing` or `error` and returns undefined when it cannot. */
  private async load(): Promise<MpOrder | undefined> {
    try {
      return await api.getOrder(this.prepayId!, { signal: this.stopped.signal });
    } catch (e) {
      if (e instanceof KitApiError && e.httpStatus >= 400 && e.httpStatus < 500) this.show({ kind: 'missing' });
      else this.show({ kind: 'error', problem: problemOf(e) });
      return undefined;
    }
  }

  /** The "try again" button of the `error` view. */
  async retry(options: LaunchOptions): Promise<void> {
    return this.start({ ...options, sandboxResult: undefined });
  }

  /** The pay button. */
  async pay(): Promise<void> {
    if (this.view.kind !== 'ready' || !this.prepayId) return;
    const order = this.view.order;
    this.show({ kind: 'paying', order });
    const way = this.way;
    if (way === 'alipayMini') return this.payInAlipayMini(this.prepayId, order);
    if (way === 'alipayWap') return this.payInAlipayBrowser(this.prepayId, order);
    let answer: api.PayAnswer;
    try {
      const code = await this.loginCode();
      answer = await api.requestPayArgs(this.prepayId, code);
    } catch (e) {
      return this.show({ kind: 'ready', order, notice: { kind: 'failed', problem: problemOf(e) } });
    }
    if (answer.status !== 'success' || !('args' in answer)) return this.show({ kind: 'rescan', order });
    const { args } = answer;
    if (this.isH5) {
      // On H5 Taro.requestPayment resolves without paying: the sandbox cashier stands in.
      this.leave(api.sandboxCashierUrl(args.package, returnUrl(this.href)));
      return;
    }
    try {
      await Taro.requestPayment({
        timeStamp: String(args.timeStamp),
        nonceStr: args.nonceStr,
        package: args.package,
        // `RSA` on API v3, `MD5`/`HMAC-SHA256` on protocol v2: passed through as the service signed it.
        signType: args.signType,
        paySign: args.paySign,
      });
    } catch (e) {
      // The platform's errMsg ("requestPayment:fail …") is for developers; the payer is told plainly.
      const errMsg = (e as { errMsg?: string })?.errMsg ?? '';
      const notice: Notice = /cancel/i.test(errMsg) ? { kind: 'cancelled' } : { kind: 'failed', problem: {} };
      return this.show({ kind: 'ready', order, notice });
    }
    return this.waitForResult(order);
  }

  /** The Alipay mini-program: `my.getAuthCode` → the router (open id, `alipayMini`) → `my.tradePay`. */
  private async payInAlipayMini(prepayId: string, order: MpOrder): Promise<void> {
    let answer: Awaited<ReturnType<typeof api.requestAlipayTrade>>;
    try {
      const got = await alipay().getAuthCode({ scopes: 'auth_base' });
      const authCode = got.authCode ?? got.code;
      if (!authCode) throw new Error('getAuthCode gave no code');
      answer = await api.requestAlipayTrade(prepayId, authCode);
    } catch (e) {
      return this.show({ kind: 'ready', order, notice: { kind: 'failed', problem: problemOf(e) } });
    }
    if (answer.status !== 'success' || !('args' in answer)) return this.show({ kind: 'rescan', order });
    let code: string | undefined;
    try {
      const paid = await alipay().tradePay({ tradeNO: answer.args.tradeNO });
      code = paid.resultCode ?? paid.response?.resultCode;
    } catch (e) {
      // A refusal arrives as a failure too, with the same result codes.
      code = (e as { resultCode?: string })?.resultCode;
    }
    if (code && TRADE_PAID_OR_PENDING.has(code)) return this.waitForResult(order);
    return this.show({ kind: 'ready', order, notice: code === TRADE_CANCELLED ? { kind: 'cancelled' } : { kind: 'failed', problem: {} } });
  }

  /** The H5 page in Alipay's browser: leaves for Alipay's payment page, which comes back here marked as a return. */
  private async payInAlipayBrowser(prepayId: string, order: MpOrder): Promise<void> {
    let answer: Awaited<ReturnType<typeof api.requestAlipayWapUrl>>;
    try {
      answer = await api.requestAlipayWapUrl(prepayId, alipayReturnUrl(this.href));
    } catch (e) {
      return this.show({ kind: 'ready', order, notice: { kind: 'failed', problem: problemOf(e) } });
    }
    if (answer.status !== 'success' || !('args' in answer)) return this.show({ kind: 'rescan', order });
    this.leave(answer.args.url);
  }

  /** The 4.2 client loop through the router: immediate re-call until the order leaves `active`. */
  private async waitForResult(order: MpOrder): Promise<void> {
    this.show({ kind: 'waiting', order });
    let final: MpOrder;
    try {
      final = await waitLoop(() => api.getOrder(this.prepayId!, { wait: true, signal: this.stopped.signal }), {
        signal: this.stopped.signal,
      });
    } catch (e) {
      if (this.stopped.signal.aborted) return;
      if (e instanceof KitApiError && e.httpStatus < 500) return this.show({ kind: 'missing' });
      return this.show({ kind: 'error', problem: problemOf(e) });
    }
    const view = closedView({ ...order, ...final }, true, this.wallet);
    this.show(view);
    if (view.kind === 'paidTwice') await this.followSecondPayment(view.order);
  }

  /**
   * The page of a second payment reads the order again while its refund is under way (the kit may not
   * even have heard of this payment yet), so that the payer sees it refunded.
   */
  private async followSecondPayment(order: MpOrder): Promise<void> {
    const settled = (o: MpOrder) => o.secondPayments?.some((p) => walletOfChannel(p.paymentChannel) === this.wallet && p.refund !== 'refunding');
    const signal = this.stopped.signal;
    for (let i = 0; i < SECOND_REFRESHES && !settled(order) && !signal.aborted; i++) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SECOND_REFRESH_MS);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (signal.aborted) return;
      try {
        order = { ...order, ...(await api.getOrder(this.prepayId!, { signal })) };
      } catch {
        continue;
      }
      this.show({ kind: 'paidTwice', order });
    }
  }

  private async loginCode(): Promise<string> {
    if (this.isH5) return api.sandboxLoginCode(payerId());
    const { code } = await Taro.login();
    if (!code) throw new Error('login gave no code');
    return code;
  }

  /** Page unload: ends a held call and ignores late answers. */
  stop(): void {
    this.stopped.abort();
  }
}

/** A stable stand-in payer for the sandbox login on H5 (one per browser). */
function payerId(): string {
  let id = '';
  try {
    id = Taro.getStorageSync(USER_KEY) || '';
  } catch {
    id = '';
  }
  if (!id) {
    id = `payer-${Math.random().toString(36).slice(2, 10)}`;
    try {
      Taro.setStorageSync(USER_KEY, id);
    } catch {
      // Storage unavailable: a new payer per payment is fine for the sandbox.
    }
  }
  return id;
}

/** What went wrong, as the page can say it: the router's error id and code, or "no network". */
function problemOf(e: unknown): Problem {
  if (e instanceof KitApiError) return { error: e.error, code: typeof e.body.code === 'string' ? e.body.code : String(e.httpStatus) };
  if (e instanceof KitNetworkError) return { network: true };
  return {};
}
