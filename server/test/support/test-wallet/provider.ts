/**
 * The provider of the test-only wallet Acme Pay (docs/architecture.md, "Adding a wallet", steps 1–3:
 * what `server/src/payments/providers/acme/` would hold for a wallet of the kit): its settings
 * section, the client of its made-up API, its readers of answers and notifications into the kit's
 * facts, and its module. It imports only the provider contract and the wallet's declaration.
 *
 * Acme Pay's protocol, minimal but signed: JSON bodies posted to `ACME_GATEWAY_URL`, every request,
 * answer and notification carrying `Acme-Signature: t=<unix ms>,v1=<hex HMAC-SHA256 of "<t>.<body>"
 * under ACME_API_KEY>`; an answer or notification without a valid signature, or older than five
 * minutes, is not Acme's. Orders are `/v1/orders` (a code to scan), `/v1/orders/query`,
 * `/v1/orders/close`; a payer's code at the counter `/v1/charges`, undone with `/v1/charges/cancel`;
 * refunds `/v1/refunds` and `/v1/refunds/query`. Refusals answer `{error, message}`. Notifications
 * (`payment.succeeded`, `refund.succeeded`) come to `/pay-notify/acme/{pay,refund}`, acknowledged `ok`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { KitError, type AppPayArgs, type MiniProgramPayArgs } from '@kit/shared';
import { json } from '../../../src/openapi/describe';
import type { PayChannelOrdersTable, PayRefundsTable } from '../../../src/db/schema';
import {
  defineProvider,
  type CodePayment,
  type KitEvent,
  type NotificationReader,
  type OrderForChannel,
  type Outcome,
  type PaymentFacts,
  type PaymentFlow,
  type PaymentProvider,
  type Placed,
  type ProviderContext,
  type Refusal,
  type RefundFacts,
  type ServiceSettings,
  type StoredParams,
} from '../../../src/payments/providers/provider';
import { acmeWallet } from './wallet';

/** Its settings section: where Acme Pay is and the key it signs with (one without the other is refused at start). */
export const acmeSettings = () => ({
  ACME_GATEWAY_URL: z.string().url().optional().describe('Acme Pay (a test wallet): the base URL of its API.'),
  ACME_API_KEY: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .describe('Acme Pay (a test wallet): the key its requests, answers and notifications are signed with (HMAC-SHA256).'),
});

interface AcmeSettings {
  ACME_GATEWAY_URL?: string;
  ACME_API_KEY?: string;
}
type Config = ServiceSettings & AcmeSettings;

const FIVE_MINUTES = 5 * 60_000;

/** The signature header of `body` at `t` (what Acme's requests, answers and notifications carry). */
export const acmeSignature = (key: string, t: number, body: string) => `t=${t},v1=${createHmac('sha256', key).update(`${t}.${body}`).digest('hex')}`;

/** Why a signature header is not Acme's for `body` now, or null when it is. */
function signatureProblem(key: string, header: string | undefined | null, body: string, now: number): string | null {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return 'no Acme-Signature';
  const t = Number(m[1]);
  if (Math.abs(now - t) > FIVE_MINUTES) return 'Acme-Signature is too old';
  const expected = Buffer.from(acmeSignature(key, t, body).slice(-64), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex')) ? null : 'Acme-Signature does not match';
}

/** Acme's refusal of a call, as it answered. */
class AcmeRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The merchant an order is placed for: its Acme account. */
interface AcmeMerchant extends Record<string, string> {
  merchant: string;
}
const merchantOf = (co: Pick<PayChannelOrdersTable, 'merchant_json'>): string => (JSON.parse(co.merchant_json) as AcmeMerchant).merchant;

const MEANINGS: Record<string, Refusal['meaning']> = {
  no_such_order: 'not_found',
  no_such_refund: 'not_found',
  order_closed: 'closed',
  order_paid: 'paid',
  code_invalid: 'code_unusable',
  balance_short: 'payer_cannot_pay',
};

async function attempt<T extends object>(call: Refusal['call'], fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, ...(await fn()) };
  } catch (e) {
    if (!(e instanceof AcmeRefused)) throw e;
    return { ok: false, refusal: { call, meaning: MEANINGS[e.code] ?? 'other', code: e.code, message: e.message } };
  }
}

/** Acme Pay's answer to an order query. */
interface AcmeOrder {
  state: 'open' | 'paid' | 'closed' | 'refunded';
  payment_id?: string;
  amount: number;
  paid_at?: number;
}

class AcmeProvider implements PaymentProvider {
  readonly id = 'acme';
  readonly channel = 'Acme';
  readonly realm = 'acme';
  readonly flows: readonly PaymentFlow[] = ['scan', 'code'];
  readonly notifications: NotificationReader;
  readonly codePayment: CodePayment = {
    pay: (co, order, code) =>
      attempt('order', async () => {
        const r = await this.call<{ state: 'paid' | 'waiting'; payment_id?: string; paid_at?: number }>('/v1/charges', {
          ...this.order(co, order),
          code: code.authCode,
          device: code.deviceId ?? null,
        });
        return { paid: r.state === 'paid' ? { transactionId: r.payment_id!, paidAt: r.paid_at ?? this.ctx.clock.now() } : null };
      }),
    cancel: (co) =>
      attempt('order', async () => (await this.call('/v1/charges/cancel', { merchant: merchantOf(co), order_no: co.out_trade_no }), { again: false })),
  };

  constructor(
    private readonly config: Config,
    private readonly ctx: ProviderContext,
  ) {
    this.notifications = acmeNotifications(() => this.key(), ctx);
  }

  private key(): string {
    if (!this.config.ACME_API_KEY) throw new KitError('channel_unavailable', 'Acme Pay is not configured: set ACME_API_KEY');
    return this.config.ACME_API_KEY;
  }

  /** One signed call; an answer that is not Acme's (unsigned, forged, not JSON) means Acme could not be reached. */
  private async call<T>(path: string, body: object): Promise<T> {
    const text = JSON.stringify(body);
    const key = this.key();
    let res: Response;
    try {
      res = await fetch(`${this.ctx.gateway()}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'acme-signature': acmeSignature(key, this.ctx.clock.now(), text) },
        body: text,
        signal: this.ctx.clock.timeout(this.config.PAY_GATEWAY_TIMEOUT),
      });
    } catch (e) {
      throw new KitError('channel_unavailable', `Acme Pay could not be reached: ${(e as Error).message}`);
    }
    const answer = await res.text();
    const problem = signatureProblem(key, res.headers.get('acme-signature'), answer, this.ctx.clock.now());
    if (problem) throw new KitError('channel_unavailable', `Acme Pay's answer to ${path} is not Acme's: ${problem}`);
    const parsed = JSON.parse(answer) as T & { error?: string; message?: string };
    if (parsed.error) throw new AcmeRefused(parsed.error, parsed.message ?? parsed.error);
    return parsed;
  }

  /** A kit order as Acme is told about it. */
  private order(co: PayChannelOrdersTable, order: OrderForChannel) {
    return {
      merchant: merchantOf(co),
      order_no: co.out_trade_no,
      amount: order.total_cents,
      subject: order.display_name,
      expires_at: order.expire_at,
      notify_url: this.ctx.notifyUrl('pay'),
    };
  }

  signType(): string {
    return 'ACME-HMAC-SHA256';
  }

  merchant(params: StoredParams, flow: PaymentFlow): AcmeMerchant {
    if (!this.flows.includes(flow)) throw new KitError('channel_unavailable', `Acme Pay does not take ${flow} payments`);
    const p = params as { acmeMerchantId?: string };
    if (!p.acmeMerchantId) throw new KitError('payment_params_missing', 'payment parameters of channel Acme are missing: acmeMerchantId');
    return { merchant: p.acmeMerchantId };
  }

  placeOrder(co: PayChannelOrdersTable, order: OrderForChannel): Promise<Outcome<Placed>> {
    return attempt('order', async () => {
      const { qr } = await this.call<{ qr: string }>('/v1/orders', this.order(co, order));
      return { channelPrepayId: null, codeUrl: qr, scanArgs: { qr } };
    });
  }

  queryOrder(co: PayChannelOrdersTable): Promise<Outcome<PaymentFacts>> {
    return attempt('order', async () => {
      const o = await this.call<AcmeOrder>('/v1/orders/query', { merchant: merchantOf(co), order_no: co.out_trade_no });
      return {
        state: o.state === 'open' ? 'unpaid' : o.state,
        transactionId: o.payment_id ?? null,
        amountCents: o.amount,
        paidAt: o.paid_at ?? this.ctx.clock.now(),
        stateText: o.state,
        mismatch: o.amount !== co.total_cents ? `Acme Pay reports ${o.amount} cents, the order ${co.total_cents}` : null,
      };
    });
  }

  closeOrder(co: PayChannelOrdersTable) {
    return attempt('order', async () => (await this.call('/v1/orders/close', { merchant: merchantOf(co), order_no: co.out_trade_no }), {}));
  }

  refund(r: PayRefundsTable, co: PayChannelOrdersTable) {
    return attempt('refund', async () => {
      const a = await this.call<{ refund_id: string }>('/v1/refunds', {
        merchant: merchantOf(co),
        order_no: co.out_trade_no,
        refund_no: r.out_refund_no,
        amount: r.refund_cents,
        notify_url: this.ctx.notifyUrl('refund'),
      });
      return { refundId: a.refund_id };
    });
  }

  queryRefund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<Outcome<RefundFacts>> {
    return attempt('refund', async () => {
      const a = await this.call<{ refund_id: string; state: 'pending' | 'done' | 'failed'; amount: number }>('/v1/refunds/query', {
        merchant: merchantOf(co),
        refund_no: r.out_refund_no,
      });
      const state = a.state === 'done' ? 'succeeded' : a.state === 'failed' ? 'failed' : 'processing';
      return { listed: true, state, refundId: a.refund_id, amountCents: a.amount, stateText: a.state } as const;
    });
  }

  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram'): MiniProgramPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'app'): AppPayArgs;
  payerArgs(): MiniProgramPayArgs | AppPayArgs {
    throw new KitError('channel_unavailable', "Acme Pay's payments go through its own way (acmeNative) or the payer's code");
  }

  isRetryable(r: Refusal): boolean {
    return r.code === 'try_again';
  }
}

/** A notification's body, as Acme sends it. */
const notificationSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('payment.succeeded'), order_no: z.string(), payment_id: z.string(), amount: z.number().int(), paid_at: z.number().int() }),
  z.object({ type: z.literal('refund.succeeded'), order_no: z.string(), refund_no: z.string(), refund_id: z.string(), amount: z.number().int() }),
]);

/** Refused: a signature that is not Acme's, another kind of body, an unknown order or refund, a wrong amount. */
function acmeNotifications(key: () => string, ctx: ProviderContext): NotificationReader {
  return {
    async read(kind, req, lookup): Promise<KitEvent> {
      const body = req.body.toString('utf8');
      const problem = signatureProblem(key(), req.header('acme-signature'), body, ctx.clock.now());
      if (problem) return { event: 'refused', reason: problem };
      let n: z.infer<typeof notificationSchema>;
      try {
        n = notificationSchema.parse(JSON.parse(body));
      } catch {
        return { event: 'refused', reason: 'not a notification of Acme Pay' };
      }
      const co = await lookup.channelOrder(n.order_no);
      if (!co) return { event: 'refused', reason: 'unknown order_no', orderNo: n.order_no };
      if (n.type === 'payment.succeeded') {
        if (kind !== 'pay') return { event: 'refused', reason: 'a payment at the refund URL', orderNo: n.order_no };
        if (n.amount !== co.total_cents) return { event: 'refused', reason: `amount is ${n.amount} cents, the order ${co.total_cents}`, orderNo: n.order_no };
        return { event: 'paid', order: co, facts: { transactionId: n.payment_id, paidAt: n.paid_at } };
      }
      if (kind !== 'refund') return { event: 'refused', reason: 'a refund at the payment URL', orderNo: n.order_no };
      const refund = await lookup.refund(n.refund_no);
      if (!refund || refund.out_trade_no !== co.out_trade_no) return { event: 'refused', reason: 'unknown refund_no', orderNo: n.order_no };
      return { event: 'refund', refund, outcome: 'succeeded', refundId: n.refund_id, stateText: n.type };
    },
    answer(outcome, message) {
      if (outcome === 'ack') return { status: 200, type: 'text/plain', body: 'ok' };
      return { status: outcome === 'failed' ? 500 : 400, type: 'text/plain', body: `refused: ${message}` };
    },
  };
}

/** Acme Pay's provider module: what a wallet registers (its line in the registration list the root takes). */
export const acme = defineProvider({
  id: 'acme',
  channel: 'Acme',
  wallet: acmeWallet,
  realm: 'acme',
  description: 'Acme Pay (a test wallet)',
  payerBrowser: acmeWallet.payerBrowser,
  flows: ['scan', 'code'],
  ways: acmeWallet.ways,
  settings: acmeSettings,
  settingsProblem: (config) =>
    !config.ACME_GATEWAY_URL !== !config.ACME_API_KEY ? 'ACME_GATEWAY_URL and ACME_API_KEY: set both, or neither (Acme Pay is off without them)' : null,
  active: (config) => !!config.ACME_API_KEY,
  gatewayUrl: (config) => config.ACME_GATEWAY_URL,
  gatewaySetting: 'ACME_GATEWAY_URL',
  missingSettings: (config) => [!config.ACME_GATEWAY_URL && 'ACME_GATEWAY_URL', !config.ACME_API_KEY && 'ACME_API_KEY'].filter((s): s is string => !!s),
  create: (config, ctx) => new AcmeProvider(config, ctx),
  notificationDoc: {
    protocol: 'Acme Pay',
    body: json(notificationSchema),
    headers: { 'Acme-Signature': z.string().openapi({ description: 'Acme Pay: `t=<unix ms>,v1=<HMAC-SHA256 of "<t>.<body>">`' }) },
    ack: { status: 200, description: 'Acme Pay: taken (the body `ok`)' },
    refusal: json(z.string()),
  },
});
