/**
 * The payment page's logic, free of React so it can be tested with Taro mocked:
 * launch options → prepay id → order (4.2) → pay (login code → router → 4.4 args → payment call
 * or, on H5, the sandbox cashier) → wait for the result (the 4.2 long-poll loop) → success.
 */
import Taro from '@tarojs/taro';
import { parseScene } from '@kit/shared/scene';
import { waitLoop } from '@kit/shared/long-poll';
import { KitApiError } from '@kit/shared/errors';
import { formatCents, parseCents } from '@kit/shared/money';
import type { PrepayDetail } from '@kit/shared/api/prepay';
import * as api from '../../lib/api';

export type Notice = { kind: 'cancelled' } | { kind: 'failed'; msg: string };

/** What the page shows. Only `ready` has a pay button. */
export type PayView =
  | { kind: 'loading' }
  /** No prepay id in the code, or the order does not exist (4.2 not found). */
  | { kind: 'missing' }
  /** The order is not `active` (expired, closed or already used): it must not be used. */
  | { kind: 'expired'; order: PrepayDetail }
  | { kind: 'ready'; order: PrepayDetail; notice?: Notice }
  /** Getting the login code and the payment arguments, then paying (or leaving for the cashier). */
  | { kind: 'paying'; order: PrepayDetail }
  /** Paid on the phone; waiting for the service to confirm (4.2 waitForFinish loop). */
  | { kind: 'waiting'; order: PrepayDetail }
  | { kind: 'success'; order: PrepayDetail }
  /** 4.4 did not answer `success`: the payment expired, the payer must scan again. */
  | { kind: 'rescan'; order: PrepayDetail; msg?: string }
  /** The order could not be read (network or server failure); a retry is offered. */
  | { kind: 'error'; msg: string };

export type LaunchOptions = Record<string, string | undefined>;

/** The prepay id from a mini-program code (`scene`, URL-encoded) or a plain QR link (`q`, the whole URL). */
export function prepayIdFromOptions(options: LaunchOptions): string | null {
  for (const key of ['scene', 'q'] as const) {
    const value = options[key];
    if (typeof value !== 'string' || value.length === 0) continue;
    const id = parseScene(value) ?? parseScene(safeDecode(value));
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

/** "12.34" → "¥12.34"; an amount that does not parse is shown as received. */
export function displayAmount(totalAmount: string): string {
  try {
    return `¥${formatCents(parseCents(totalAmount))}`;
  } catch {
    return `¥${totalAmount}`;
  }
}

/** The URL the cashier returns to: this page without a previous `sandboxResult`. */
export function returnUrl(href: string): string {
  const hashAt = href.indexOf('#');
  const [base, hash] = hashAt < 0 ? [href, ''] : [href.slice(0, hashAt), href.slice(hashAt)];
  const strip = (part: string) => {
    const q = part.indexOf('?');
    if (q < 0) return part;
    const kept = part.slice(q + 1).split('&').filter((p) => p && !p.startsWith('sandboxResult='));
    return kept.length ? `${part.slice(0, q)}?${kept.join('&')}` : part.slice(0, q);
  };
  return hash ? `${base}${strip(hash)}` : strip(base);
}

/** The status line of each view. */
export function statusText(view: PayView): string {
  switch (view.kind) {
    case 'loading':
      return 'Loading the order…';
    case 'missing':
      return 'This order does not exist. Please check the code you scanned.';
    case 'expired':
      return view.order.status === 'cancel'
        ? 'This order has expired. Ask the cashier for a new code.'
        : 'This order has already been paid and can no longer be used.';
    case 'ready':
      return 'Waiting for payment';
    case 'paying':
      return 'Starting the payment…';
    case 'waiting':
      return 'Confirming the payment…';
    case 'success':
      return 'Payment successful';
    case 'rescan':
      return 'This payment has expired. Please scan the code again.';
    case 'error':
      return `The order could not be loaded: ${view.msg}`;
  }
}

const USER_KEY = 'kit-payer-user';

export interface PayFlowDeps {
  onChange: (view: PayView) => void;
  /** H5: leaves the page for the sandbox cashier. */
  leave?: (url: string) => void;
  /** H5: the page's own URL (the cashier comes back to it). */
  href?: () => string;
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
    if (result === 'paid' && (order.status === 'active' || order.status === 'finish')) return this.waitForResult(order);
    if (order.status !== 'active') return this.show({ kind: 'expired', order });
    this.show({ kind: 'ready', order, notice: result === 'cancel' ? { kind: 'cancelled' } : undefined });
  }

  /** Reads the order once; shows `missing` or `error` and returns undefined when it cannot. */
  private async load(): Promise<PrepayDetail | undefined> {
    try {
      return await api.getOrder(this.prepayId!, { signal: this.stopped.signal });
    } catch (e) {
      if (e instanceof KitApiError && e.httpStatus >= 400 && e.httpStatus < 500) this.show({ kind: 'missing' });
      else this.show({ kind: 'error', msg: messageOf(e) });
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
    let answer: api.PayAnswer;
    try {
      const code = await this.loginCode();
      answer = await api.requestPayArgs(this.prepayId, code);
    } catch (e) {
      return this.show({ kind: 'ready', order, notice: { kind: 'failed', msg: messageOf(e) } });
    }
    if (answer.status !== 'success' || !('args' in answer)) {
      return this.show({ kind: 'rescan', order, msg: 'msg' in answer ? answer.msg : undefined });
    }
    const { args } = answer;
    if (this.isH5) {
      // On H5 Taro.requestPayment resolves without paying (DESIGN 2.4): the sandbox cashier stands in.
      const href = this.deps.href?.() ?? window.location.href;
      const leave = this.deps.leave ?? ((url: string) => window.location.assign(url));
      leave(api.sandboxCashierUrl(args.package, returnUrl(href)));
      return;
    }
    try {
      await Taro.requestPayment({
        timeStamp: String(args.timeStamp),
        nonceStr: args.nonceStr,
        package: args.package,
        signType: args.signType as 'MD5' | 'HMAC-SHA256' | 'RSA',
        paySign: args.paySign,
      });
    } catch (e) {
      const msg = (e as { errMsg?: string })?.errMsg ?? messageOf(e);
      const notice: Notice = /cancel/i.test(msg) ? { kind: 'cancelled' } : { kind: 'failed', msg };
      return this.show({ kind: 'ready', order, notice });
    }
    return this.waitForResult(order);
  }

  /** The 4.2 client loop through the router: immediate re-call until the order leaves `active`. */
  private async waitForResult(order: PrepayDetail): Promise<void> {
    this.show({ kind: 'waiting', order });
    let final: PrepayDetail;
    try {
      final = await waitLoop(() => api.getOrder(this.prepayId!, { wait: true, signal: this.stopped.signal }), {
        signal: this.stopped.signal,
      });
    } catch (e) {
      if (this.stopped.signal.aborted) return;
      if (e instanceof KitApiError && e.httpStatus < 500) return this.show({ kind: 'missing' });
      return this.show({ kind: 'error', msg: messageOf(e) });
    }
    if (final.status === 'finish') return this.show({ kind: 'success', order: final });
    this.show({ kind: 'expired', order: final });
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

function messageOf(e: unknown): string {
  if (e instanceof KitApiError) return e.body.msg ?? e.message;
  return (e as { errMsg?: string })?.errMsg ?? (e as Error)?.message ?? String(e);
}
