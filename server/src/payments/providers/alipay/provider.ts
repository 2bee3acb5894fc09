/**
 * `alipay`: channel `Alipay` (design 6.3), Alipay's open platform as a service provider's app acting
 * for each merchant through its `appAuthToken`. The scan-code flow: the order is placed with
 * `alipay.trade.precreate` (its `qr_code` is the payer's code), followed with `alipay.trade.query`,
 * ended with `alipay.trade.close`, refunded with `alipay.trade.refund` and confirmed with
 * `alipay.trade.fastpay.refund.query`; payment and refund notifications come to one URL,
 * `/pay-notify/alipay`, form-encoded, answered `success`.
 *
 * Never picked for the social flows (4.3–4.5): it is asked for by channel, through its own
 * endpoint (`alipayNative`). With no `ALIPAY_*` key setting it is off, except in development with
 * the sandbox, which plays Alipay with keys generated into DATA_DIR (`dev-keys.ts`).
 */
import { KitError, type AlipayParams, type AppPayArgs, type MiniProgramPayArgs } from '@kit/shared';
import { text } from '../../../openapi/describe';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../../db/schema';
import {
  defineProvider,
  type KitEvent,
  type NotificationReader,
  type OrderForChannel,
  type Outcome,
  type PaymentFacts,
  type PaymentFlow,
  type PaymentProvider,
  type ProviderContext,
  type Refusal,
  type ServiceSettings,
} from '../provider';
import { AlipayClient } from './client';
import { devAlipayMaterial } from './dev-keys';
import { AlipayError } from './errors';
import { ALIPAY_NOTIFY_ACK, AlipayNotificationError, parseNotificationBody, readNotification } from './notification';
import { ALIPAY_KEY_SETTINGS, alipayCredentials, alipaySettingsProblem, alipaySettingsShape, type AlipayCredentials, type AlipaySettings } from './settings';

type Config = ServiceSettings & AlipaySettings;

/** Whether any of the settings that turn Alipay on is given (else: off, or the sandbox's in development). */
const configured = (config: AlipaySettings): boolean => ALIPAY_KEY_SETTINGS.some((k) => !!config[k]?.trim());

/** Development with the sandbox and no Alipay setting: the sandbox plays Alipay. */
export const alipayPlayedBySandbox = (config: ServiceSettings & AlipaySettings): boolean => !configured(config) && config.SANDBOX_ENABLED && !config.production;

/** The credentials the kit signs and verifies with: the settings', or the development keys the sandbox shares. */
function credentialsOf(config: Config): Omit<AlipayCredentials, 'gatewayUrl'> {
  if (!alipayPlayedBySandbox(config)) {
    const c = alipayCredentials(config);
    if (!c)
      throw new KitError('channel_unavailable', 'Alipay is not configured: set ALIPAY_APP_ID, ALIPAY_PRIVATE_KEY and ALIPAY_PUBLIC_KEY (docs/payments.md)');
    return c;
  }
  const dev = devAlipayMaterial(config.DATA_DIR);
  return { appId: dev.appId, privateKey: dev.appPrivateKey, trust: { mode: 'public-key', alipayPublicKey: dev.alipayPublicKey } };
}

/** The merchant an Alipay order is placed for: its authorization. */
interface AlipayMerchant extends Record<string, string> {
  appAuthToken: string;
}

const merchantOf = (co: Pick<PayChannelOrdersTable, 'merchant_json'>): AlipayMerchant => JSON.parse(co.merchant_json) as AlipayMerchant;

/** Alipay's refusal of a call, in the kit's words; anything but a verified refusal means "unreachable". */
function refusalOf(call: Refusal['call'], e: unknown): Refusal {
  if (!(e instanceof AlipayError)) throw e;
  if (e.failure !== 'refused') throw new KitError('channel_unavailable', e.message);
  const code = e.subCode ?? e.details.code ?? '';
  const meaning: Refusal['meaning'] =
    code === 'ACQ.TRADE_NOT_EXIST'
      ? 'not_found'
      : code === 'ACQ.TRADE_HAS_CLOSE' || code === 'ACQ.TRADE_HAS_FINISHED'
        ? 'closed'
        : code === 'ACQ.TRADE_HAS_SUCCESS'
          ? 'paid'
          : 'other';
  return { call, meaning, code, message: e.subMsg ?? e.details.msg ?? e.message };
}

async function attempt<T extends object>(call: Refusal['call'], fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, ...(await fn()) };
  } catch (e) {
    return { ok: false, refusal: refusalOf(call, e) };
  }
}

const RETRYABLE_CODES = new Set(['ACQ.SYSTEM_ERROR', 'aop.ACQ.SYSTEM_ERROR', 'isp.unknow-error', 'aop.unknow-error', 'isp.unknown-error', '20000']);

export class AlipayProvider implements PaymentProvider {
  readonly id = 'alipay';
  readonly channel = 'Alipay' as const;
  readonly realm = 'alipay';
  readonly flows: readonly PaymentFlow[] = ['scan'];
  /** Asked for by its own endpoint (`alipayNative`), never for 4.3's social code. */
  readonly ownEndpoints = true;
  readonly notifications: NotificationReader;
  private credentials?: Omit<AlipayCredentials, 'gatewayUrl'>;

  constructor(
    private readonly config: Config,
    private readonly ctx: ProviderContext,
  ) {
    this.notifications = alipayNotifications(() => this.keys());
  }

  signType(): string {
    return 'RSA2';
  }

  merchant(params: Parameters<PaymentProvider['merchant']>[0]): AlipayMerchant {
    const p = params as Partial<AlipayParams>;
    if (!p.appAuthToken) throw new KitError('payment_params_missing', 'payment parameters of channel Alipay are missing: appAuthToken');
    return { appAuthToken: p.appAuthToken };
  }

  private keys(): Omit<AlipayCredentials, 'gatewayUrl'> {
    return (this.credentials ??= credentialsOf(this.config));
  }

  /** The client for the gateway of now (the sandbox's hangs off the service's own URL, known once it listens). */
  private client(): AlipayClient {
    return new AlipayClient({ ...this.keys(), gatewayUrl: this.ctx.gateway() }, { timeoutMs: this.config.PAY_GATEWAY_TIMEOUT });
  }

  async placeOrder(co: PayChannelOrdersTable, order: OrderForChannel) {
    return attempt('order', async () => {
      const { qrCode } = await this.client().precreate({
        appAuthToken: merchantOf(co).appAuthToken,
        outTradeNo: co.out_trade_no,
        totalCents: order.total_cents,
        subject: order.display_name,
        expireAt: order.expire_at,
        notifyUrl: this.ctx.notifyUrl(),
      });
      return { channelPrepayId: null, codeUrl: qrCode, scanArgs: { qr_code: qrCode } };
    });
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
        paidAt: f.paidAt ?? Date.now(),
        stateText: f.exists ? f.state : 'not scanned yet',
        mismatch,
      };
    });
  }

  async closeOrder(co: PayChannelOrdersTable) {
    return attempt('order', async () => {
      // A code nobody scanned has no trade to close: the expiry it was sent with ends it.
      await this.client().close({ appAuthToken: merchantOf(co).appAuthToken, outTradeNo: co.out_trade_no });
      return {};
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
    return attempt('refund', async () => {
      const f = await this.client().refundQuery({ appAuthToken: merchantOf(co).appAuthToken, outTradeNo: co.out_trade_no, outRequestNo: r.out_refund_no });
      // No refund status: not refunded yet (or not received; asking again finds out).
      if (f.state === 'pending')
        return { listed: true, state: 'processing' as const, refundId: null, amountCents: r.refund_cents, stateText: 'not refunded yet' };
      return { listed: true, state: 'succeeded' as const, refundId: co.transaction_id, amountCents: f.refundCents, stateText: 'REFUND_SUCCESS' };
    });
  }

  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram'): MiniProgramPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'app'): AppPayArgs;
  payerArgs(): MiniProgramPayArgs | AppPayArgs {
    throw new KitError('channel_unavailable', 'Alipay takes scan-code payments here (alipayNative)');
  }

  isRetryable(r: Refusal): boolean {
    return RETRYABLE_CODES.has(r.code);
  }
}

/**
 * One URL for payments and refunds: a notification after a refund carries `out_biz_no` (the
 * refund's number) and `refund_fee`; `TRADE_CLOSED` after a full refund means refunded, never a
 * cancel. Refused: a bad signature, another application, an unknown order or a wrong amount.
 */
function alipayNotifications(keys: () => Omit<AlipayCredentials, 'gatewayUrl'>): NotificationReader {
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
      if (n.state === 'paid') return { event: 'paid', order: co, facts: { transactionId: n.tradeNo, paidAt: n.paidAt ?? Date.now() } };
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
  flows: ['scan'],
  settings: () => alipaySettingsShape,
  settingsProblem: (config) => alipaySettingsProblem(config),
  // Off with none of its settings, except where the sandbox plays it.
  active: (config) => configured(config) || alipayPlayedBySandbox(config),
  // The default gateway is Alipay's own; without any setting, the sandbox's.
  gatewayUrl: (config) => (configured(config) ? config.ALIPAY_GATEWAY_URL : undefined),
  gatewaySetting: 'ALIPAY_GATEWAY_URL',
  missingSettings: (config) => (alipayPlayedBySandbox(config) ? [] : [alipaySettingsProblem(config)].filter((s): s is string => !!s)),
  create: (config, ctx) => new AlipayProvider(config, ctx),
  notificationDoc: {
    protocol: 'Alipay',
    body: text('application/x-www-form-urlencoded', 'Alipay: the trade notification (`notify_type=trade_status_sync`), signed RSA2 over the sorted fields'),
    ack: { status: 200, description: 'Alipay: taken (the body `success`)', content: text('text/plain', '`success`') },
    refusal: text('text/plain', 'Alipay: `fail: <why>`; Alipay repeats the notification'),
    oneUrl: true,
  },
});
