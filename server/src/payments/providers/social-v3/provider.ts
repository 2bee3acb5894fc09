/**
 * `social-v3`: the social payment platform over API v3 (5.1) in service-provider mode: the calls of
 * `v3-calls.ts` through the verifying client, payer arguments signed with the merchant's RSA key,
 * notifications verified and decrypted, profit sharing and the daily bill.
 */
import { KitError, type AppPayArgs, type MiniProgramPayArgs } from '@kit/shared';
import type { PayChannelOrdersTable } from '../../../db/schema';
import type { CodePayment, KitEvent, NotificationReader, PaymentFlow, PaymentProvider, Refusal } from '../provider';
import { FLOW_COLUMN } from '../provider';
import { paidFacts, paidFieldsProblem } from '../protocol-v2/checks';
import { isRetryable, outcome, paymentFacts, placedOf, refundFacts } from '../protocol-v2/facts';
import { merchantOf } from '../protocol-v2/merchant';
import type { ChannelAdapter, TradeType } from '../protocol-v2/types';
import { refundEvent, V3_SIGN_TYPE } from '../protocol-v2/v2-provider';
import { profitSharingOf } from '../protocol-v2/sharing';
import { codePaymentOf } from '../protocol-v2/code-payment';
import { dailyBillOf } from './daily-bill';
import { socialAccountOf } from './merchant';
import { refusal } from './notification';
import type { V3Side } from './v3-channel';
import { signedHeaders } from './verify';

export class SocialV3Provider implements PaymentProvider {
  readonly id = 'social-v3';
  readonly channel = 'SocialNative' as const;
  readonly realm = 'social';
  readonly flows: readonly PaymentFlow[] = ['scan', 'miniProgram', 'app'];
  readonly profitSharing;
  readonly dailyBill;
  readonly notifications: NotificationReader;
  readonly accountOf = socialAccountOf;
  /** The payer's payment code (7.4): `codepay`, `reverse`, read as protocol v2's micropay is (`protocol-v2/code-payment.ts`). */
  readonly codePayment: CodePayment;

  constructor(
    private readonly adapter: ChannelAdapter,
    private readonly side: V3Side,
  ) {
    this.profitSharing = profitSharingOf(adapter, () => side.calls);
    this.dailyBill = dailyBillOf(this.channel, (date) => side.bills.download(date));
    this.notifications = v3Notifications(side);
    this.codePayment = codePaymentOf(
      () => side.calls,
      () => side.clock.now(),
    );
  }

  signType(): string {
    return V3_SIGN_TYPE;
  }

  merchant(params: Parameters<PaymentProvider['merchant']>[0], flow: PaymentFlow, openId?: string) {
    return this.adapter.merchantFields(params, FLOW_COLUMN[flow] as TradeType, openId) as unknown as Record<string, string>;
  }

  async placeOrder(co: PayChannelOrdersTable, order: Parameters<PaymentProvider['placeOrder']>[1]) {
    // API v3 answers a scan-code order with its `code_url` only.
    return outcome('order', await this.side.calls.unifiedOrder(co, order), (f) => placedOf(co.trade_type, f, false));
  }

  async queryOrder(co: PayChannelOrdersTable) {
    return outcome('order', await this.side.calls.orderQuery(co), (f) => paymentFacts(co, f, this.side.clock.now()));
  }

  async closeOrder(co: PayChannelOrdersTable) {
    return outcome('order', await this.side.calls.closeOrder(co), () => ({}));
  }

  async refund(r: Parameters<PaymentProvider['refund']>[0], co: PayChannelOrdersTable) {
    return outcome('refund', await this.side.calls.refund(r, co), (f) => ({ refundId: f.refund_id ?? null }));
  }

  async queryRefund(r: Parameters<PaymentProvider['queryRefund']>[0], co: PayChannelOrdersTable) {
    return outcome('refund', await this.side.calls.refundQuery(r, co), (f) => refundFacts(r.out_refund_no, f));
  }

  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram'): MiniProgramPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'app'): AppPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram' | 'app'): MiniProgramPayArgs | AppPayArgs {
    if (co.sign_type !== V3_SIGN_TYPE) throw new KitError('channel_unavailable', 'this order was placed over protocol v2; set PAY_PROTOCOL=v2 to pay it');
    const merchant = merchantOf(co);
    // 4.4 and 4.5 carry RSA signatures with the merchant API private key (`signType: "RSA"`).
    if (flow === 'miniProgram') return this.side.miniProgramArgs(this.adapter.payerAppId(merchant), co.channel_prepay_id!);
    return this.side.appArgs(this.adapter.appArgsIds(merchant, 'v3'), co.channel_prepay_id!);
  }

  isRetryable(r: Refusal): boolean {
    return isRetryable(r);
  }
}

/**
 * API v3 notifications: headers verified over the raw body (probes, stale timestamps and forged
 * signatures refused; an unknown serial makes certificate mode fetch the certificates once), the
 * resource decrypted with the APIv3 key, then checked against the order or refund it names.
 * Answered 204 to acknowledge, 4xx/5xx with `{"code":"FAIL","message":…}` to refuse.
 */
function v3Notifications(side: V3Side): NotificationReader {
  return {
    async read(kind, req, lookup): Promise<KitEvent> {
      const facts = await side.notification(kind, signedHeaders(req.header), req.body.toString('utf8'));
      if (!facts.ok) return { event: 'refused', reason: `${facts.reason}: ${facts.message}` };
      const n = facts.fields;
      if (kind === 'refund') return refundEvent(n, lookup);
      const co = n.out_trade_no ? await lookup.channelOrder(n.out_trade_no) : undefined;
      if (!co) return { event: 'refused', reason: 'unknown out_trade_no', orderNo: n.out_trade_no };
      const problem = paidFieldsProblem(n, { sign_type: co.sign_type, total_cents: co.total_cents, merchant: merchantOf(co) });
      if (problem) return { event: 'refused', reason: problem, orderNo: n.out_trade_no };
      // Only `TRANSACTION.SUCCESS` reaches here; its resource still has to say SUCCESS.
      if (n.trade_state !== 'SUCCESS') return { event: 'refused', reason: `trade_state ${n.trade_state} in a payment notification`, orderNo: n.out_trade_no };
      return { event: 'paid', order: co, facts: paidFacts(n, side.clock.now()) };
    },
    answer(outcome, message) {
      if (outcome === 'ack') return { status: 204 };
      return { status: outcome === 'failed' ? 500 : 400, body: refusal(message) };
    },
  };
}
