/**
 * What the mini-program router does for a payer, by the front-end backends' rule
 * (`frontends/README.md`): like a merchant backend it calls this service's public API in-process
 * (`routes/in-process.ts`: 4.2 detail, the payment arguments of a way) as the app that owns the
 * order's sub-merchant; it reads from the services what the API has no call for (which app that
 * is, the order's items) and guards the payer's login with the service's brute-force limit.
 */
import {
  KitError,
  PAY_VERSION,
  formatCents,
  readOrderItems,
  wayOf,
  type PayRequest,
  type PaymentChannel,
  type PrepayDetail,
  type WayDeclaration,
} from '@kit/shared';
import { MP_DEFAULT_WAY, type MpOrder, type MpPayRequest, type MpPayResponse } from '@kit/shared/api/mp';
import type { Services } from '../../services';
import type { InProcessApi } from '../../routes/in-process';
import { prepayDetail } from '../../routes/submerchant-pay';
import type { PayerLogin } from './payer-login';

export class MpBackend {
  constructor(
    private readonly services: Services,
    private readonly api: InProcessApi,
    private readonly login: PayerLogin,
  ) {}

  /**
   * 4.2 for the page, with the order number and what `extraInfo` says was bought (a direct read:
   * 4.2 does not carry `extraInfo`); `not_found` (404) when there is no such order.
   */
  async detail(prepayId: string, opts: { wait?: boolean; signal?: AbortSignal } = {}): Promise<MpOrder> {
    const appId = await this.appOf(prepayId);
    let detail: PrepayDetail;
    try {
      detail = await this.api.call(prepayDetail, { appId, signal: opts.signal }, { params: { prepayId }, query: { waitForFinish: opts.wait ? '1' : '0' } });
    } catch (e) {
      throw upstream(e, prepayId);
    }
    const order: MpOrder = { ...detail, prepayId };
    const bought = readOrderItems(parseStored((await this.services.prepay.find(prepayId))?.extra_info));
    if (bought) {
      if (bought.items.length) order.items = bought.items;
      if (bought.more) order.itemsMore = bought.more;
      if (bought.note) order.note = bought.note;
    }
    if (detail.status === 'finish' || detail.status === 'refunded') Object.assign(order, await this.payments(prepayId));
    return order;
  }

  /**
   * Which wallet paid a paid order, and the payments made after it (each refunded automatically): a
   * payer whose own payment came second is told so, and that it comes back, not "payment successful".
   */
  private async payments(prepayId: string): Promise<Pick<MpOrder, 'paymentChannel' | 'secondPayments'>> {
    const paymentChannel = (await this.services.payments.paidChannels([prepayId])).get(prepayId);
    const { duplicates } = await this.services.payments.state(prepayId);
    const secondPayments = duplicates.map((d) => ({
      paymentChannel: d.channel as PaymentChannel,
      amount: formatCents(d.refund_cents),
      refund: d.state === 'success' ? ('refunded' as const) : d.state === 'failed' ? ('failed' as const) : ('refunding' as const),
    }));
    return { ...(paymentChannel ? { paymentChannel } : {}), ...(secondPayments.length ? { secondPayments } : {}) };
  }

  /**
   * The way the page pays with, as its declaration says for the payer page (`page`): for a
   * mini-program, its login code → the payer's open id (the kit's mini-program login for
   * `miniProgram`, the wallet's own for `walletMini`, both guarded by the service's brute-force
   * limit) → the way; for a page in the wallet's browser, where its payment page sends the payer
   * back. A refusal of the way is an answer (the page asks to scan again), not an error.
   */
  async pay(req: MpPayRequest, payer: { address?: string }): Promise<MpPayResponse> {
    const way = wayOf(req.way ?? MP_DEFAULT_WAY);
    if (!way?.page) throw new KitError('invalid_request', `way: the payer page does not pay with "${req.way}"`);
    const appId = await this.appOf(req.prepayId);
    const input =
      way.flow === 'wap' ? way.page.input({ returnUrl: req.returnUrl }) : way.page.input({ openId: await this.payerOf(way, req.code ?? '', payer) });
    const call = { prepayId: req.prepayId, way: way.name, ...input } as PayRequest;
    return this.answer(req.prepayId, async () => (await this.api.pay({ appId }, call)).args);
  }

  /** A login code → the payer's open id. A login code has no account: refused codes count against the payer's address. */
  private payerOf(way: WayDeclaration, code: string, payer: { address?: string }): Promise<string> {
    return this.services.logins.guard({ address: payer.address }, () =>
      way.flow === 'miniProgram' ? this.login.openIdFor(code) : this.services.payments.args.wayPayer(way.name, code),
    );
  }

  /** A payment call's `args` as `success`; its refusal is an answer the page shows (scan again), not an error. */
  private async answer<A>(
    prepayId: string,
    call: () => Promise<A>,
  ): Promise<{ version: 1; status: 'success'; args: A } | { version: 1; status: string; error?: string; msg?: string }> {
    try {
      return { version: PAY_VERSION, status: 'success', args: await call() };
    } catch (e) {
      if (!(e instanceof KitError)) throw e;
      // The owning app was disabled meanwhile.
      if (e.error === 'unknown_app') throw notFound(prepayId);
      return { version: PAY_VERSION, status: 'fail', error: e.error, msg: e.message };
    }
  }

  /** The app that owns the order's sub-merchant, which the router acts as; `not_found` without one, or when it is disabled (before a login code is spent on it). */
  private async appOf(prepayId: string): Promise<string> {
    const appId = await this.services.prepay.subMerchantAppOf(prepayId);
    if (!appId || (await this.services.apps.secretOf(appId)) === null) throw notFound(prepayId);
    return appId;
  }
}

const notFound = (prepayId: string) => new KitError('not_found', `prepay order "${prepayId}" does not exist`);

function upstream(e: unknown, prepayId: string): Error {
  if (!(e instanceof KitError)) return e instanceof Error ? e : new Error(String(e));
  // The owning app was disabled or removed: the order cannot be served.
  if (e.error === 'not_found' || e.error === 'unknown_app') return notFound(prepayId);
  if (e.error === 'unavailable') return e;
  return new KitError('mp_upstream_failed', `the service answered ${e.httpStatus} ${e.error}`);
}

/** `extra_info` is stored as the JSON text of what the merchant sent. */
function parseStored(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
