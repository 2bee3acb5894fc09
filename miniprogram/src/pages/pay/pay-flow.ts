/**
 * The payment page's logic, free of React so it can be tested with Taro mocked:
 * launch options → prepay id → order (4.2) → pay → wait for the result (the 4.2 long-poll loop) → success.
 * How it pays depends on where it runs, which the wallets' own files say (`src/wallets/`, `pagePay`):
 * in a wallet's mini-program, its login code → `POST /mp/api/pay` with the wallet's way → the
 * platform's payment call; as the H5 page, `POST /mp/api/pay` → a payment page to leave for, which
 * comes back here (the wallet's own in its browser, the sandbox's cashier anywhere else).
 */
import { parseScene } from '@kit/shared/scene';
import { waitLoop } from '@kit/shared/long-poll';
import { KitApiError, KitNetworkError } from '@kit/shared/errors';
import { formatMoneyText } from '@kit/shared/money-format';
import type { MpOrder } from '@kit/shared/api/mp';
import { walletLooksOfChannel } from '@kit/shared/wallets/looks';
import * as api from '../../lib/api';
import { RETURN_MARKERS, pagePay, returnMarker, type PagePay } from '../../wallets';
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
   * Paid in this visit, but the order had been paid with another wallet before this payment went
   * through: this one is a second payment, refunded automatically (docs/payments.md, "Paid once").
   */
  | { kind: 'paidTwice'; order: MpOrder }
  /** The way did not answer `success`: the payment expired, the payer must scan again. */
  | { kind: 'rescan'; order: MpOrder }
  /** The order could not be read (network or server failure); a retry is offered. */
  | { kind: 'error'; problem: Problem };

export type LaunchOptions = Record<string, string | undefined>;

/** The POS's one code for any wallet: `<service>/p/<prepayId>`. */
const PAYER_LINK = /\/p\/([0-9A-Za-z]{1,64})(?:[/?#]|$)/;

/**
 * The prepay id from a mini-program code (`scene`, URL-encoded) or a plain QR link (the whole URL:
 * `q` in the social app, `qrCode` in Alipay's: every platform's launch key), whether the link holds
 * the scene or is the one code for any wallet (`/p/<prepayId>`).
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

/** The URL a payment page returns to: this page without a previous `sandboxResult` or return marker. */
export function returnUrl(href: string): string {
  const hashAt = href.indexOf('#');
  const [base, hash] = hashAt < 0 ? [href, ''] : [href.slice(0, hashAt), href.slice(hashAt)];
  const strip = (part: string) => {
    const q = part.indexOf('?');
    if (q < 0) return part;
    const kept = part
      .slice(q + 1)
      .split('&')
      .filter((p) => p && !p.startsWith('sandboxResult=') && !RETURN_MARKERS.some((m) => p.startsWith(`${m}=`)));
    return kept.length ? `${part.slice(0, q)}?${kept.join('&')}` : part.slice(0, q);
  };
  return hash ? `${base}${strip(hash)}` : strip(base);
}

/**
 * Where a wallet's payment page sends the payer back: this page, marked as a return from it. The
 * wallet adds its own parameters to the query before the `#`; the page's hash router reads only what follows it.
 */
export function markedReturnUrl(href: string, wallet: string): string {
  const url = returnUrl(href);
  const hashAt = url.indexOf('#');
  const part = hashAt < 0 ? url : url.slice(hashAt);
  return `${url}${part.includes('?') ? '&' : '?'}${returnMarker(wallet)}=1`;
}

/** Whether a payment made with `wallet` is not the one that paid the order (a payment through another wallet's channel). */
const otherWallet = (channel: string, wallet: string) => walletLooksOfChannel(channel)?.id !== wallet;

/**
 * The page for an order that is not `active` when opened or when the wait ends. Back from paying with
 * `mine` an order another wallet paid: this payment came second (both went through), and is refunded.
 */
function closedView(order: MpOrder, justPaid: boolean, mine: string): PayView {
  if (order.status === 'finish' && justPaid && order.paymentChannel && otherWallet(order.paymentChannel, mine)) return { kind: 'paidTwice', order };
  if (order.status === 'finish') return { kind: justPaid ? 'success' : 'paid', order };
  if (order.status === 'refunded') return { kind: 'refunded', order };
  return { kind: 'expired', order };
}

/** How often, and how many times, the page of a second payment reads the order again until its refund ends. */
const SECOND_REFRESH_MS = 3_000;
const SECOND_REFRESHES = 100;

export interface PayFlowDeps {
  onChange: (view: PayView) => void;
  /** H5: leaves the page for a payment page (a wallet's, the sandbox cashier). */
  leave?: (url: string) => void;
  /** H5: the page's own URL (the payment page comes back to it). */
  href?: () => string;
  /** H5: the browser's user agent (a wallet's own browser pays with that wallet's page). */
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

  /** How this page pays where it runs (the build's platform, the browser). */
  private get paying(): PagePay {
    const ua = this.deps.userAgent?.() ?? (typeof navigator === 'undefined' ? '' : navigator.userAgent);
    return pagePay(process.env.TARO_ENV, ua);
  }

  /** The wallet this page pays with. */
  private get wallet(): string {
    return this.paying.wallet;
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

  /** Page load: reads the id, the order and, on H5, what the payment page reported on return. */
  async start(options: LaunchOptions): Promise<void> {
    this.prepayId = prepayIdFromOptions(options);
    if (!this.prepayId) return this.show({ kind: 'missing' });
    this.show({ kind: 'loading' });
    const order = await this.load();
    if (!order) return;
    const result = options.sandboxResult;
    const back = result === 'paid' || RETURN_MARKERS.some((m) => options[m] === '1');
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
    const paying = this.paying;
    let answer: api.PayAnswer;
    try {
      const code = paying.loginCode ? await paying.loginCode() : undefined;
      const back = paying.kind === 'leave' && paying.returns ? markedReturnUrl(this.href, paying.wallet) : undefined;
      answer = await api.pay({ prepayId: this.prepayId, way: paying.way, code, returnUrl: back });
    } catch (e) {
      return this.show({ kind: 'ready', order, notice: { kind: 'failed', problem: problemOf(e) } });
    }
    if (answer.status !== 'success' || !('args' in answer)) return this.show({ kind: 'rescan', order });
    if (paying.kind === 'leave') return this.leave(paying.leave(answer.args, returnUrl(this.href)));
    const outcome = await paying.call(answer.args);
    if (outcome === 'paid') return this.waitForResult(order);
    return this.show({ kind: 'ready', order, notice: outcome === 'cancelled' ? { kind: 'cancelled' } : { kind: 'failed', problem: {} } });
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
    const settled = (o: MpOrder) => o.secondPayments?.some((p) => !otherWallet(p.paymentChannel, this.wallet) && p.refund !== 'refunding');
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

  /** Page unload: ends a held call and ignores late answers. */
  stop(): void {
    this.stopped.abort();
  }
}

/** What went wrong, as the page can say it: the router's error id and code, or "no network". */
function problemOf(e: unknown): Problem {
  if (e instanceof KitApiError) return { error: e.error, code: typeof e.body.code === 'string' ? e.body.code : String(e.httpStatus) };
  if (e instanceof KitNetworkError) return { network: true };
  return {};
}
