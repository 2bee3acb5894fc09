/**
 * `alipay`: channel `Alipay` (design 6.3), Alipay's open platform as a service provider's app acting
 * for each merchant through its `appAuthToken`. The scan-code flow: the order is placed with
 * `alipay.trade.precreate` (its `qr_code` is the payer's code), followed with `alipay.trade.query`,
 * ended with `alipay.trade.close`, refunded with `alipay.trade.refund` and confirmed with
 * `alipay.trade.fastpay.refund.query`; payment and refund notifications come to one URL,
 * `/pay-notify/alipay`, form-encoded, answered `success`. The daily bill: one per authorizing
 * merchant (`daily-bill.ts`).
 *
 * The other flows, through its own endpoints too: the kit's mini-program inside Alipay
 * (`walletMini`: `alipay.trade.create` for the payer's open id, whose `trade_no` the page's
 * `my.tradePay` pays; the open id comes from `alipay.system.oauth.token`, the payer login), the
 * Alipay app (`app`: the signed `alipay.trade.app.pay` order string) and a page in Alipay's browser
 * (`wap`: the signed `alipay.trade.wap.pay` URL). The last two make no call: the kit signs them at
 * each request and Alipay makes the trade when the payer opens them.
 *
 * Never picked for the social flows (4.3–4.5): it is asked for by channel, through its own
 * endpoints (`alipayNative`, `alipayMini`, `alipayApp`, `alipayWap`). With no `ALIPAY_*` key
 * setting it is off; in development the sandbox plays Alipay by handing it the settings of keys it
 * generated (`DevPlugin.plays`, `payments/providers/played.ts`).
 */
import { alipayWallet } from '@kit/shared/wallets';
import type { Clock } from '@kit/shared/clock';
import { KitError, type ChannelParams, type AppPayArgs, type MiniProgramPayArgs } from '@kit/shared';
import { text } from '../../../openapi/describe';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../../db/schema';
import {
  defineProvider,
  flowOf,
  type CodePayment,
  type DailyBill,
  type KitEvent,
  type NotificationReader,
  type OrderForChannel,
  type Outcome,
  type PaymentFacts,
  type PaymentFlow,
  type PayerLogin,
  type PaymentProvider,
  type Placed,
  type ProviderContext,
  type Closed,
  type Refusal,
  type ServiceSettings,
} from '../provider';
import { AlipayClient, type AlipayOrder } from './client';
import { alipayAccountOf, alipayDailyBill } from './daily-bill';
import { AlipayError, retryableAlipayCode } from './errors';
import { ALIPAY_NOTIFY_ACK, AlipayNotificationError, parseNotificationBody, readNotification } from './notification';
import { ALIPAY_KEY_SETTINGS, alipayCredentials, alipaySettingsProblem, alipaySettingsShape, type AlipayCredentials, type AlipaySettings } from './settings';

type Config = ServiceSettings & AlipaySettings;

/** Whether any of the settings that turn Alipay on is given (else: off). */
const configured = (config: AlipaySettings): boolean => ALIPAY_KEY_SETTINGS.some((k) => !!config[k]?.trim());

/** The credentials the kit signs and verifies with: its settings' (a development plug-in that plays Alipay gives its own: `played.ts`). */
function credentialsOf(config: Config): Omit<AlipayCredentials, 'gatewayUrl'> {
  const c = alipayCredentials(config);
  if (!c) throw new KitError('channel_unavailable', 'Alipay is not configured: set ALIPAY_APP_ID, ALIPAY_PRIVATE_KEY and ALIPAY_PUBLIC_KEY (docs/payments.md)');
  return c;
}

/** The merchant an Alipay order is placed for: its authorization. */
interface AlipayMerchant extends Record<string, string> {
  appAuthToken: string;
}

const merchantOf = (co: Pick<PayChannelOrdersTable, 'merchant_json'>): AlipayMerchant => JSON.parse(co.merchant_json) as AlipayMerchant;

/** A payment code's refusals that say the payer cannot pay with it (7.4): another card, or another way. */
const ALIPAY_PAYER_CANNOT_PAY = new Set([
  'ACQ.BUYER_BALANCE_NOT_ENOUGH',
  'ACQ.BUYER_BANKCARD_BALANCE_NOT_ENOUGH',
  'ACQ.PAYMENT_FAIL',
  'ACQ.BUYER_PAYMENT_AMOUNT_DAY_LIMIT_ERROR',
  'ACQ.BUYER_PAYMENT_AMOUNT_MONTH_LIMIT_ERROR',
  'ACQ.ERROR_BUYER_CERTIFY_LEVEL_LIMIT',
  'ACQ.BUYER_ENABLE_STATUS_FORBID',
]);

/** `Retry-After` of the kit's 503 when Alipay asks for the same call again later (`ACQ.SYSTEM_ERROR`…) and says not when. */
const ALIPAY_RETRY_AFTER_SECONDS = 5;

/**
 * Alipay's refusal of a call, in the kit's words. No answer, or one that is not used (a bad
 * signature, an unsigned success), means "unreachable"; a refusal asking for the same call again
 * (`ACQ.SYSTEM_ERROR`…, signed or not) is "unavailable, retry after", which changes nothing either.
 * An unsigned refusal (`error_response`, an error node without `sign`) is read for its codes only,
 * as Alipay's SDKs read it, and is never used to change money state a signed answer would confirm:
 * unless `unsignedDecides` (the call changes no money: a payer's login), it is thrown as the
 * platform's refusal in words, which leaves every order and refund as it was.
 */
/**
 * The gateway's public codes for a request it refused as a request (Alipay's error code table): 20001
 * the app's authorisation, 40001 a parameter missing, 40002 one invalid, 40006 the app's rights.
 */
const ALIPAY_REQUEST_REFUSED = new Set(['20001', '40001', '40002', '40006']);

function refusalOf(call: Refusal['call'], e: unknown, unsignedDecides = false): Refusal {
  if (!(e instanceof AlipayError)) throw e;
  if (e.failure !== 'refused') throw new KitError('channel_unavailable', e.message);
  if (e.retryable)
    throw new KitError('channel_unavailable', `${e.message}; Alipay asks for the same call again later`, { retryAfterSeconds: ALIPAY_RETRY_AFTER_SECONDS });
  if (e.unsigned && !unsignedDecides) throw new KitError('channel_error', `${e.message} (not signed by Alipay: nothing is changed by it)`);
  const code = e.subCode ?? e.details.code ?? '';
  const meaning: Refusal['meaning'] = e.unsigned
    ? 'other'
    : code === 'ACQ.TRADE_NOT_EXIST'
      ? 'not_found'
      : code === 'ACQ.TRADE_HAS_CLOSE' || code === 'ACQ.TRADE_HAS_FINISHED'
        ? 'closed'
        : code === 'ACQ.TRADE_HAS_SUCCESS'
          ? 'paid'
          : code === 'ACQ.PAYMENT_AUTH_CODE_INVALID'
            ? 'code_unusable'
            : ALIPAY_PAYER_CANNOT_PAY.has(code)
              ? 'payer_cannot_pay'
              : ALIPAY_REQUEST_REFUSED.has(e.details.code ?? '')
                ? 'request_refused'
                : 'other';
  return { call, meaning, code, message: e.subMsg ?? e.details.msg ?? e.message };
}

async function attempt<T extends object>(call: Refusal['call'], fn: () => Promise<T>, unsignedDecides = false): Promise<Outcome<T>> {
  try {
    return { ok: true, ...(await fn()) };
  } catch (e) {
    return { ok: false, refusal: refusalOf(call, e, unsignedDecides) };
  }
}

/** How far Alipay's clock may be behind the kit's when a code's expiry is judged. */
const ALIPAY_CLOCK_SLACK_MS = 60_000;

const miniAppMissing = () =>
  new KitError('channel_unavailable', 'ALIPAY_MINI_APP_ID is not set: Alipay mini-program payments and logins need the mini-program payers open');

/** The flows Alipay takes, all through its own endpoints. */
const ALIPAY_FLOWS = ['scan', 'walletMini', 'app', 'wap', 'code'] as const satisfies readonly PaymentFlow[];

export class AlipayProvider implements PaymentProvider {
  readonly id = 'alipay';
  readonly channel = 'Alipay' as const;
  readonly realm = 'alipay';
  readonly flows: readonly PaymentFlow[] = ALIPAY_FLOWS;
  /** Asked for by its own endpoints (`alipayNative`…), never for 4.3–4.5's social flows. */
  readonly notifications: NotificationReader;
  /** One bill per authorizing merchant (`daily-bill.ts`). */
  readonly dailyBill: DailyBill;
  readonly accountOf = alipayAccountOf;
  private credentials?: Omit<AlipayCredentials, 'gatewayUrl'>;

  readonly payerLogin: PayerLogin;
  /** The payer's payment code at the counter (7.4): `alipay.trade.pay` (bar_code), `alipay.trade.cancel`. */
  readonly codePayment: CodePayment = {
    pay: (co, order, code) =>
      attempt('order', async () => {
        const r = await this.client().tradePay({ ...this.trade(co, order), authCode: code.authCode, deviceId: code.deviceId });
        if (r.state === 'waiting') return { paid: null };
        if (r.amountCents !== undefined && r.amountCents !== co.total_cents)
          throw new KitError('channel_unavailable', `Alipay reports ${r.amountCents} cents paid for the payment code, the order ${co.total_cents}`);
        return { paid: { transactionId: r.tradeNo, paidAt: r.paidAt ?? this.ctx.clock.now() } };
      }),
    cancel: (co) => attempt('order', async () => this.client().cancel({ appAuthToken: merchantOf(co).appAuthToken, outTradeNo: co.out_trade_no })),
  };

  constructor(
    private readonly config: Config,
    private readonly ctx: ProviderContext,
  ) {
    this.notifications = alipayNotifications(() => this.keys(), ctx.clock);
    this.payerLogin = {
      openIdFor: (code) => {
        // Not the payer's fault: no refusal to count against them.
        if (!this.keys().miniAppId) throw miniAppMissing();
        // A refused code changes no money: Alipay's unsigned `error_response` (isv.code-invalid…) refuses the login too.
        return attempt('order', async () => ({ openId: (await this.client().oauthToken(code)).openId }), true);
      },
    };
    this.dailyBill = alipayDailyBill(() => this.client(), { timeoutMs: config.PAY_GATEWAY_TIMEOUT, clock: ctx.clock, log: ctx.log });
  }

  signType(): string {
    return 'RSA2';
  }

  merchant(params: Parameters<PaymentProvider['merchant']>[0], flow: PaymentFlow): AlipayMerchant {
    if (!(ALIPAY_FLOWS as readonly string[]).includes(flow)) throw new KitError('channel_unavailable', `Alipay does not take ${flow} payments`);
    // Checked before anything is placed: the mini-program's trades name the mini-program payers open.
    if (flow === 'walletMini' && !this.keys().miniAppId) throw miniAppMissing();
    const p = params as Partial<ChannelParams['Alipay']>;
    if (!p.appAuthToken) throw new KitError('payment_params_missing', 'payment parameters of channel Alipay are missing: appAuthToken');
    return { appAuthToken: p.appAuthToken };
  }

  private keys(): Omit<AlipayCredentials, 'gatewayUrl'> {
    return (this.credentials ??= credentialsOf(this.config));
  }

  /** The client for the gateway of now (the sandbox's hangs off the service's own URL, known once it listens). */
  private client(): AlipayClient {
    return new AlipayClient({ ...this.keys(), gatewayUrl: this.ctx.gateway() }, { timeoutMs: this.config.PAY_GATEWAY_TIMEOUT, clock: this.ctx.clock });
  }

  async placeOrder(co: PayChannelOrdersTable, order: OrderForChannel): Promise<Outcome<Placed>> {
    const flow = flowOf(co.trade_type);
    return attempt('order', async (): Promise<Placed> => {
      const trade = this.trade(co, order);
      if (flow === 'walletMini') {
        // The same out_trade_no again is the same trade: Alipay answers its trade_no.
        const { tradeNo } = await this.client().create({ ...trade, buyerOpenId: co.open_id ?? '' });
        return { channelPrepayId: tradeNo, codeUrl: null, scanArgs: { tradeNO: tradeNo } };
      }
      if (flow === 'app' || flow === 'wap') {
        // Nothing to ask Alipay: the payer's wallet makes the trade from what the kit signs (walletArgs).
        return { channelPrepayId: null, codeUrl: null, scanArgs: {} };
      }
      const { qrCode } = await this.client().precreate(trade);
      return { channelPrepayId: null, codeUrl: qrCode, scanArgs: { qr_code: qrCode } };
    });
  }

  /**
   * The payer's arguments of a placed order: what the order call gave (the code, the mini-program's
   * `tradeNO`), or the order string and the payment page's URL signed now (their `timestamp` is
   * checked by Alipay when the payer opens them).
   */
  walletArgs(co: PayChannelOrdersTable, order: OrderForChannel, flow: PaymentFlow, payer: { returnUrl?: string }): Record<string, string> {
    if (flow === 'scan' || flow === 'walletMini') return JSON.parse(co.answer_json ?? '{}') as Record<string, string>;
    try {
      if (flow === 'app') return { orderStr: this.client().appPayOrderString(this.trade(co, order)) };
      if (flow === 'wap') return { url: this.client().wapPayUrl({ ...this.trade(co, order), returnUrl: payer.returnUrl }) };
    } catch (e) {
      // The order expired while it was being signed.
      if (e instanceof AlipayError) throw new KitError('order_not_active', `prepay order "${order.prepay_id}" has expired; start a new payment`);
      throw e;
    }
    throw new KitError('channel_unavailable', `Alipay does not take ${flow} payments`);
  }

  /** A kit order as Alipay is told about it, whatever the flow. */
  private trade(co: PayChannelOrdersTable, order: OrderForChannel): AlipayOrder {
    return {
      appAuthToken: merchantOf(co).appAuthToken,
      outTradeNo: co.out_trade_no,
      // The order number the POS and the payer page show, for Alipay's page to show too.
      merchantOrderNo: order.prepay_id,
      totalCents: order.total_cents,
      subject: order.display_name,
      expireAt: order.expire_at,
      notifyUrl: this.ctx.notifyUrl(),
    };
  }

  async queryOrder(co: PayChannelOrdersTable): Promise<Outcome<PaymentFacts>> {
    return attempt('order', async () => {
      const f = await this.client().query({ appAuthToken: merchantOf(co).appAuthToken, outTradeNo: co.out_trade_no });
      const mismatch =
        f.amountCents !== undefined && f.amountCents !== co.total_cents ? `Alipay reports ${f.amountCents} cents, the order ${co.total_cents}` : null;
      return {
        state: f.state,
        transactionId: f.tradeNo ?? null,
        amountCents: f.amountCents ?? null,
        paidAt: f.paidAt ?? this.ctx.clock.now(),
        stateText: f.exists ? f.state : 'no trade at Alipay yet (not scanned or opened)',
        mismatch,
      };
    });
  }

  async closeOrder(co: PayChannelOrdersTable, order: Pick<OrderForChannel, 'expire_at'>) {
    return attempt('order', async (): Promise<Closed> => {
      const f = await this.client().close({ appAuthToken: merchantOf(co).appAuthToken, outTradeNo: co.out_trade_no });
      if (f.exists) return {};
      // No trade to close: a code nobody scanned (an order string or page nobody opened) is no trade at
      // Alipay until a payer does, so closing it changed nothing there; it stays payable until the
      // expiry it was placed with, never later than the order's (`orderBiz`), give or take Alipay's clock.
      return { payableUntil: order.expire_at + ALIPAY_CLOCK_SLACK_MS };
    });
  }

  async refund(r: PayRefundsTable, co: PayChannelOrdersTable) {
    return attempt('refund', async () => {
      // The same out_request_no again is the same refund (`fund_change: "N"`), not a failure.
      const f = await this.client().refund({
        appAuthToken: merchantOf(co).appAuthToken,
        outTradeNo: co.out_trade_no,
        outRequestNo: r.out_refund_no,
        refundCents: r.refund_cents,
      });
      return { refundId: f.tradeNo ?? null };
    });
  }

  async queryRefund(r: PayRefundsTable, co: PayChannelOrdersTable) {
    const query = () => this.client().refundQuery({ appAuthToken: merchantOf(co).appAuthToken, outTradeNo: co.out_trade_no, outRequestNo: r.out_refund_no });
    const known = await attempt('refund', async () => ({ facts: await query() }));
    if (!known.ok) return known;
    const f = known.facts;
    // No refund_status, whatever else the answer names: Alipay did not take the refund (never
    // received, or failed) and says to send it again under the same out_request_no, which is the
    // same refund to it; the kit's `not_found` does that.
    if (f.state === 'not_taken')
      return {
        ok: false as const,
        refusal: {
          call: 'refund' as const,
          meaning: 'not_found' as const,
          code: '',
          message: 'alipay.trade.fastpay.refund.query gives no refund_status: Alipay did not take this refund',
        },
      };
    return {
      ok: true as const,
      listed: true,
      state: 'succeeded' as const,
      refundId: co.transaction_id,
      amountCents: f.refundCents,
      stateText: 'REFUND_SUCCESS',
    };
  }

  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram'): MiniProgramPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'app'): AppPayArgs;
  payerArgs(): MiniProgramPayArgs | AppPayArgs {
    throw new KitError('channel_unavailable', "Alipay's payments go through its own endpoints (alipayNative, alipayMini, alipayApp, alipayWap)");
  }

  isRetryable(r: Refusal): boolean {
    return retryableAlipayCode(r.code);
  }
}

/**
 * One URL for payments and refunds: a notification after a refund carries `out_biz_no` (the
 * refund's number) and `refund_fee`; `TRADE_CLOSED` after a full refund means refunded, never a
 * cancel. Refused: a bad signature, another application, an unknown order or a wrong amount.
 */
function alipayNotifications(keys: () => Omit<AlipayCredentials, 'gatewayUrl'>, clock: Clock): NotificationReader {
  return {
    async read(_kind, req, lookup): Promise<KitEvent> {
      let n;
      try {
        n = readNotification({ ...keys(), gatewayUrl: '' }, parseNotificationBody(req.body.toString('utf8')));
      } catch (e) {
        if (e instanceof AlipayNotificationError) return { event: 'refused', reason: e.message };
        throw e;
      }
      const co = await lookup.channelOrder(n.outTradeNo);
      if (!co) return { event: 'refused', reason: 'unknown out_trade_no', orderNo: n.outTradeNo };
      if (n.amountCents !== co.total_cents)
        return { event: 'refused', reason: `total_amount is ${n.amountCents} cents, the order ${co.total_cents}`, orderNo: n.outTradeNo };
      if (n.outRequestNo && n.refundedCents !== undefined) {
        const refund = await lookup.refund(n.outRequestNo);
        if (!refund || refund.out_trade_no !== co.out_trade_no) return { event: 'refused', reason: 'unknown out_biz_no', orderNo: n.outTradeNo };
        if (n.refundedCents < refund.refund_cents) return { event: 'refused', reason: 'refund_fee below the refund', orderNo: n.outTradeNo };
        return { event: 'refund', refund, outcome: 'succeeded', refundId: n.tradeNo, stateText: n.state };
      }
      if (n.state === 'paid') return { event: 'paid', order: co, facts: { transactionId: n.tradeNo, paidAt: n.paidAt ?? clock.now() } };
      // WAIT_BUYER_PAY, or a trade closed unpaid: nothing to record.
      return { event: 'not_paid' };
    },
    answer(outcome, message) {
      if (outcome === 'ack') return { status: 200, type: 'text/plain', body: ALIPAY_NOTIFY_ACK };
      return { status: outcome === 'failed' ? 500 : 400, type: 'text/plain', body: `fail: ${message}` };
    },
  };
}

export const alipay = defineProvider({
  id: 'alipay',
  channel: 'Alipay',
  realm: 'alipay',
  description: 'Alipay',
  payerBrowser: alipayWallet.payerBrowser,
  flows: ALIPAY_FLOWS,
  wallet: alipayWallet,
  ways: alipayWallet.ways,
  settings: () => alipaySettingsShape,
  settingsProblem: (config) => alipaySettingsProblem(config),
  // Off with none of its settings (a development plug-in that plays Alipay gives them: `played.ts`).
  active: (config) => configured(config),
  // The default gateway is Alipay's own.
  gatewayUrl: (config) => (configured(config) ? config.ALIPAY_GATEWAY_URL : undefined),
  gatewaySetting: 'ALIPAY_GATEWAY_URL',
  missingSettings: (config) => [alipaySettingsProblem(config)].filter((s): s is string => !!s),
  create: (config, ctx) => new AlipayProvider(config, ctx),
  notificationDoc: {
    protocol: 'Alipay',
    body: text('application/x-www-form-urlencoded', 'Alipay: the trade notification (`notify_type=trade_status_sync`), signed RSA2 over the sorted fields'),
    ack: { status: 200, description: 'Alipay: taken (the body `success`)', content: text('text/plain', '`success`') },
    refusal: text('text/plain', 'Alipay: `fail: <why>`; Alipay repeats the notification'),
    oneUrl: true,
  },
});
