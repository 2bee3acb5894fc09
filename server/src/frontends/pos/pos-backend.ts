/**
 * What the POS router does for a logged-in cashier, by the front-end backends' rule
 * (`frontends/README.md`): every order, refund and points call goes to this service's public API
 * in-process (`routes/in-process.ts`), as the app that owns the sub-merchant; the cashier's login and
 * the reads the public API has no call for (the day's order list with its profit-sharing lines,
 * which order belongs to which sub-merchant, the app's secret for sealing handles) go to the services.
 */
import { KitError, AmountError, buildScene, formatCents, parseCents, parsePoints, walletOfWay, type PaymentChannel, type PrepayDetail } from '@kit/shared';
import {
  DEDUCTION_CODE_REFRESH_MS,
  DEDUCTION_CODE_TTL_MS,
  type PosBalanceQuery,
  type PosCodePayment,
  type PosOrder,
  type PosOrderSummary,
  type PosPointsCode,
  type PosPointsSession,
  type PosPointsSessionRequest,
  type PosSession,
  type PosWaitResponse,
} from '@kit/shared/api/pos';
import type { Services } from '../../services';
import type { InProcessApi } from '../../routes/in-process';
import { createPrepay, prepayDetail } from '../../routes/submerchant-pay';
import { refundOrder } from '../../routes/payments';
import { deductionCode, pointsBalance } from '../../routes/points';
import { randomAlnum } from '../../security/ids';
import { openHandle, sealHandle } from './points-handle';
import { shownStatus } from '../../orders/order-expiry';
import type { MiniProgramCode } from '../../mini-program/mini-program-codes';
import type { CODE_CANCELLED } from '../../payments/code-payments';

/** The cashier behind a request: the sub-merchant, its owning app and the login token. */
export interface Cashier extends PosSession {
  appId: string;
  loginToken: string;
}

export interface PosBackendOptions {
  /** How long one points session (one uuid) may keep asking for fresh codes. */
  pointsSessionMs: number;
  /** What the mini-program tab shows (`POS_MP_CODE`). */
  miniProgramCode: 'platform' | 'link';
  /** CODE_PAY_WAIT: how long the payer may take to confirm a payment code. */
  codePayWaitMs: number;
}

const DAY_MS = 86_400_000;

/** The way of the scan-code QR (4.3), and the way the kit's mini-program pays with (4.4). */
const SCAN_WAY = 'socialPayNative';
const MINI_PROGRAM_WAY = 'socialPay';
/** The wallets whose apps scan the display's mini-program code and its scan-code QR, as the ways declare them. */
const SCANNED_WITH: PosOrder['scannedWith'] = { miniProgram: walletOfWay(MINI_PROGRAM_WAY)!.id, scanCode: walletOfWay(SCAN_WAY)!.id };

export class PosBackend {
  constructor(
    private readonly services: Services,
    private readonly api: InProcessApi,
    private readonly opts: PosBackendOptions,
  ) {}

  /** 4.16 for a sub-merchant. A parent merchant cannot take payments, so it cannot use the display. */
  async login(userId: string, pw: string, client: { address?: string }): Promise<{ token: string; session: PosSession }> {
    const answer = await this.services.merchants.login(userId, pw, client);
    if (!answer.parentMerchantId) throw new KitError('pos_not_sub_merchant');
    return {
      token: answer.loginToken,
      session: { merchantId: answer.userId, displayName: answer.displayName, parentMerchantId: answer.parentMerchantId },
    };
  }

  /** Logging out revokes the display's login token, so a copied cookie dies with the session. */
  async logout(token: string | undefined): Promise<void> {
    if (token) await this.services.merchants.revokeLogin(token);
  }

  /** Resolves the cookie's token; anything but a valid sub-merchant login is a 401. */
  async identify(token: string | undefined): Promise<Cashier> {
    const who = await this.services.merchants.identify(token);
    if (who.kind !== 'subMerchant') throw new KitError('login_invalid');
    const row = await this.services.merchants.find(who.merchantId);
    if (!row) throw new KitError('login_invalid');
    return {
      merchantId: who.merchantId,
      displayName: who.displayName,
      parentMerchantId: who.parentMerchantId,
      appId: row.app_id,
      loginToken: token!,
    };
  }

  /** 4.1, then 4.3 for the scan-code QR. The mini-program code works even when 4.3 does not. */
  async createOrder(cashier: Cashier, amount: string, linkPrefix: string, payerLinkBase: string): Promise<PosOrder> {
    try {
      parseCents(amount);
    } catch (e) {
      if (e instanceof AmountError) throw new KitError('invalid_amount', `amount: ${e.message}`);
      throw e;
    }
    const created = await upstream('creating the order', () =>
      this.api.call(createPrepay, cashier, { body: { subMerchantId: cashier.merchantId, totalAmount: amount, orderId: null } }),
    );
    const detail = await this.detail(cashier, created.prepayId);
    return this.orderView(cashier, created.prepayId, detail, linkPrefix, payerLinkBase);
  }

  /** The payment screen's view of an order (after a reload): 4.2 without waiting, and 4.3 while it can be paid. */
  async getOrder(cashier: Cashier, prepayId: string, linkPrefix: string, payerLinkBase: string): Promise<PosOrder> {
    await this.requireOwnOrder(cashier, prepayId);
    return this.orderView(cashier, prepayId, await this.detail(cashier, prepayId), linkPrefix, payerLinkBase);
  }

  /** 4.2 with waitForFinish=1: the held answer, passed through as it comes, with the wallet that paid once paid. */
  async waitOrder(cashier: Cashier, prepayId: string, signal: AbortSignal): Promise<PosWaitResponse> {
    await this.requireOwnOrder(cashier, prepayId);
    const detail = await upstream('waiting for the payment', () =>
      this.api.call(prepayDetail, { appId: cashier.appId, signal }, { params: { prepayId }, query: { waitForFinish: '1' } }),
    );
    return this.withChannel(prepayId, detail);
  }

  /** A paid (or refunded) order's detail with the wallet that paid it. */
  private async withChannel<T extends { status: string }>(prepayId: string, answer: T): Promise<T & { paymentChannel?: PaymentChannel }> {
    if (answer.status !== 'finish' && answer.status !== 'refunded') return answer;
    const channel = (await this.services.payments.paidChannels([prepayId])).get(prepayId);
    return channel ? { ...answer, paymentChannel: channel } : answer;
  }

  /** The sub-merchant's orders since `since` (the display's midnight), newest first. */
  async listOrders(cashier: Cashier, since: number | undefined, now = this.services.clock.now()): Promise<PosOrderSummary[]> {
    const midnight = new Date(now);
    midnight.setHours(0, 0, 0, 0);
    const from = Math.min(now, Math.max(now - 2 * DAY_MS, since ?? midnight.getTime()));
    const rows = await this.services.prepay.listForSubMerchant(cashier.merchantId, from);
    const paid = rows.filter((r) => r.status === 'finish' || r.status === 'refunded');
    const sharing = await this.services.profitSharing.summaries(paid.map((r) => ({ prepayId: r.prepay_id, totalCents: r.total_cents })));
    const refunded = await this.services.payments.refundsCompleted(rows.filter((r) => r.status === 'refunded').map((r) => r.prepay_id));
    const channels = await this.services.payments.paidChannels(paid.map((r) => r.prepay_id));
    return rows.map((r) => {
      const status = shownStatus(r, now);
      const line: PosOrderSummary = {
        prepayId: r.prepay_id,
        amount: formatCents(r.total_cents),
        status,
        createTime: new Date(r.create_time).toISOString(),
      };
      if (r.payment_time !== null && r.payment_time !== undefined) line.paymentTime = new Date(r.payment_time).toISOString();
      const channel = channels.get(r.prepay_id);
      if (channel) line.paymentChannel = channel;
      const refundedAt = refunded.get(r.prepay_id);
      if (refundedAt !== undefined) line.refundTime = new Date(refundedAt).toISOString();
      // A refunded order can share no more: it keeps its line only when something was shared.
      const shared = sharing.get(r.prepay_id);
      if (shared && (r.status === 'finish' || shared.sharedAmount !== '0.00')) line.profitSharing = shared;
      return line;
    });
  }

  /**
   * The payer's payment code (7.4), through the way `codePay` as the owning app: a refusal or a
   * cancelled code is an outcome the screen says in words, not a failure of the display.
   */
  async payCode(cashier: Cashier, prepayId: string, authCode: string): Promise<PosCodePayment> {
    await this.requireOwnOrder(cashier, prepayId);
    const deviceId = `POS-${cashier.merchantId}`.slice(0, 32);
    try {
      const { args } = await upstream('charging the payment code', () => this.api.pay(cashier, { prepayId, way: 'codePay', authCode, deviceId }));
      const channel = args.channel as PaymentChannel;
      if (args.result === 'paid') return { result: 'paid', channel };
      return { result: 'waiting', channel, confirmUntil: new Date(this.services.clock.now() + this.opts.codePayWaitMs).toISOString() };
    } catch (e) {
      if (!(e instanceof KitError)) throw e;
      if (e.error === 'payment_code_refused') {
        const refusal = (e.details as { refusal?: { code: string; meaning: string } } | undefined)?.refusal;
        const reason = refusal?.meaning === 'code_unusable' ? 'code' : refusal?.meaning === 'payer_cannot_pay' ? 'payer' : 'other';
        return { result: 'refused', reason, platformCode: refusal?.code ?? '' };
      }
      // No outcome from the wallet: the kit cancelled the code (the payer is not charged).
      if ((e.details as typeof CODE_CANCELLED | undefined)?.codeCancelled) return { result: 'cancelled' };
      throw e;
    }
  }

  /** 4.6 with the cashier's own login token, then the order's state after it. */
  async refund(cashier: Cashier, prepayId: string): Promise<PrepayDetail> {
    await this.requireOwnOrder(cashier, prepayId);
    await upstream('refunding', () => this.api.call(refundOrder, cashier, { query: { loginToken: cashier.loginToken }, body: { id: prepayId } }));
    return this.withChannel(prepayId, await this.detail(cashier, prepayId));
  }

  /** 4.12. The user lives in the merchant's app, so `userAppId` is always the owning app. */
  async balance(cashier: Cashier, q: PosBalanceQuery): Promise<{ balance: string; tokenId: string; tokenAppId: string; userAppId: string; userId: string }> {
    const query = { tokenId: q.tokenId, tokenAppId: q.tokenAppId ?? cashier.appId, userAppId: cashier.appId, userId: q.userId };
    const answer = await upstream('reading the points balance', () => this.api.call(pointsBalance, cashier, { query }));
    return { ...query, balance: answer.data.balance };
  }

  /** Starts a points session: a fresh 32-character uuid sealed into a handle, and the balance. */
  async startPoints(
    cashier: Cashier,
    req: PosPointsSessionRequest,
    now = this.services.clock.now(),
  ): Promise<{ session: PosPointsSession; balance: string | null }> {
    try {
      parsePoints(req.maxAmount);
    } catch (e) {
      if (e instanceof AmountError) throw new KitError('invalid_amount', `maxAmount: ${e.message}`);
      throw e;
    }
    const { balance } = await this.balance(cashier, req);
    const fields = {
      merchantId: cashier.merchantId,
      uuid: randomAlnum(32),
      userId: req.userId,
      tokenId: req.tokenId,
      tokenAppId: req.tokenAppId ?? cashier.appId,
      userAppId: cashier.appId,
      maxAmount: req.maxAmount,
      expiresAt: now + this.opts.pointsSessionMs,
    };
    const secret = await this.secret(cashier);
    const { merchantId: _m, ...visible } = fields;
    return { session: { ...visible, handle: sealHandle(fields, secret) }, balance };
  }

  /** 4.13 for the session's uuid (the same every time), plus 4.12 for a live balance. */
  async pointsCode(cashier: Cashier, handle: string): Promise<PosPointsCode> {
    const fields = openHandle(handle, await this.secret(cashier), this.services.clock.now());
    if (!fields || fields.merchantId !== cashier.merchantId || fields.userAppId !== cashier.appId) {
      throw new KitError('pos_points_session_invalid');
    }
    const who = { tokenId: fields.tokenId, tokenAppId: fields.tokenAppId, userAppId: fields.userAppId, userId: fields.userId };
    const [code, balance] = await Promise.all([
      // `maxAmount` goes exactly as the cashier typed it: the session keeps the decimal.
      upstream('generating the deduction code', () =>
        this.api.call(deductionCode, cashier, { query: { ...who, maxAmount: fields.maxAmount, uuid: fields.uuid } }),
      ).catch((e: unknown) => {
        // The customer has paid with one of this session's codes: an outcome, not a failure.
        if (e instanceof KitError && e.error === 'uuid_spent') return null;
        throw e;
      }),
      this.api
        .call(pointsBalance, cashier, { query: who })
        .then((a) => a.data.balance)
        .catch(() => null),
    ]);
    const timing = { validForMs: DEDUCTION_CODE_TTL_MS, refreshEveryMs: DEDUCTION_CODE_REFRESH_MS };
    if (code === null) return { chainLink: null, spent: true, balance, ...timing };
    const chainLink = code.data?.chainLinks?.[0];
    if (typeof chainLink !== 'string' || !chainLink) throw new KitError('pos_upstream_failed', 'the deduction code answer held no chainLinks');
    return { chainLink, spent: false, balance, ...timing };
  }

  /**
   * The order's mini-program code as the platform drew it: the one kept for the order, or drawn now
   * while the order can still be paid (a code for an order that cannot is of no use to anyone).
   */
  async miniProgramCode(cashier: Cashier, prepayId: string): Promise<MiniProgramCode> {
    await this.requireOwnOrder(cashier, prepayId);
    const codes = this.services.miniProgram.codes;
    const kept = await codes.stored(prepayId);
    if (kept) return kept;
    const detail = await this.detail(cashier, prepayId);
    if (detail.status !== 'active') throw new KitError('order_not_active', `the order is ${detail.status}: it can no longer be paid`);
    return codes.draw(prepayId);
  }

  /** 4.2 without waiting. */
  private detail(cashier: Cashier, prepayId: string): Promise<PrepayDetail> {
    return upstream('reading the order', () => this.api.call(prepayDetail, cashier, { params: { prepayId }, query: {} }));
  }

  private async orderView(cashier: Cashier, prepayId: string, detail: PrepayDetail, linkPrefix: string, payerLinkBase: string): Promise<PosOrder> {
    const scene = buildScene(prepayId);
    const view: PosOrder = {
      prepayId,
      amount: detail.totalAmount,
      merchantName: detail.merchantDisplayName,
      status: detail.status,
      createTime: detail.createTime,
      scene,
      miniProgramCode: this.opts.miniProgramCode,
      miniProgramLink: `${linkPrefix}${encodeURIComponent(scene)}`,
      payerLink: `${payerLinkBase}/p/${prepayId}`,
      scannedWith: SCANNED_WITH,
      codeUrl: null,
    };
    if (detail.paymentTime) view.paymentTime = detail.paymentTime;
    const { paymentChannel } = await this.withChannel(prepayId, detail);
    if (paymentChannel) view.paymentChannel = paymentChannel;
    if (detail.status === 'refunded') {
      const refundedAt = (await this.services.payments.refundsCompleted([prepayId])).get(prepayId);
      if (refundedAt !== undefined) view.refundTime = new Date(refundedAt).toISOString();
    }
    if (detail.status === 'active') {
      try {
        const native = await this.api.pay(cashier, { prepayId, way: SCAN_WAY });
        // An answer without `code_url` is the channel's failure (`channel_error`), which the display names.
        if (typeof native.args?.code_url === 'string' && native.args.code_url) view.codeUrl = native.args.code_url;
        else {
          view.codeUrlError = 'the payment channel gave no code_url';
          view.codeUrlErrorId = 'channel_error';
        }
      } catch (e) {
        // The order stands without its QR: the display shows why (the mini-program code still works).
        if (!(e instanceof KitError)) throw e;
        view.codeUrlError = e.message;
        view.codeUrlErrorId = e.error;
      }
    }
    return view;
  }

  /** Orders of other sub-merchants (even of the same app) are "not found" to this cashier. */
  private async requireOwnOrder(cashier: Cashier, prepayId: string): Promise<void> {
    const row = await this.services.prepay.find(prepayId);
    if (!row || row.sub_merchant_id !== cashier.merchantId) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
  }

  private async secret(cashier: Cashier): Promise<string> {
    const secret = await this.services.apps.secretOf(cashier.appId);
    if (!secret) throw new KitError('pos_upstream_failed', 'the app that owns this sub-merchant is unknown or disabled');
    return secret;
  }
}

/**
 * Maps a refusal of the public API into the router's answer. A 401 means the cashier's login is
 * gone only when the service says so (`login_invalid`); any other 401 (an app that does not own
 * the order) is the router's own problem and must not send the cashier back to the login screen.
 */
export async function upstream<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof KitError)) throw e;
    if (e.error === 'login_invalid') throw new KitError('login_invalid');
    if (e.httpStatus === 401 || e.httpStatus === 500) throw new KitError('pos_upstream_failed', `${what}: ${e.message}`);
    throw e;
  }
}
