/**
 * A provider speaking protocol v2 (2.4): XML signed with the platform key, the unified order with
 * trade types NATIVE, JSAPI and APP, order query, close, refund, refund query, and notifications
 * (a payment's signed XML, a refund's `req_info` encrypted with the key). The platforms that speak
 * it (`social-v2`, `card-network`) differ only in how they name the merchant (their adapter) and in
 * what they offer beside (profit sharing, the daily bill, payment codes).
 */
import { KitError, type AppPayArgs, type MiniProgramPayArgs, type PaymentChannel } from '@kit/shared';
import type { PayChannelOrdersTable } from '../../../db/schema';
import {
  FLOW_COLUMN,
  type CodePayment,
  type DailyBill,
  type KitEvent,
  type NotificationReader,
  type PaymentFlow,
  type PaymentProvider,
  type ProfitSharing,
  type Refusal,
} from '../provider';
import { paidFacts, payNotificationProblem, refundNotificationProblem } from './checks';
import { isRetryable, outcome, paymentFacts, placedOf, refundFacts } from './facts';
import { v2CodeCalls } from './code-calls';
import { codePaymentOf } from './code-payment';
import { merchantOf } from './merchant';
import { v2OrderCalls } from './order-calls';
import { nonce, type ProtocolEndpoint } from './client';
import { decryptReqInfo } from './refund-info';
import { signFields, type SignType } from './sign';
import { parseXml, toXml, type Fields } from './xml';
import type { ChannelAdapter, OrderCalls, TradeType } from './types';

/** What new channel orders placed over API v3 record as their sign type (their payer arguments are RSA-signed). */
export const V3_SIGN_TYPE = 'RSA';

export interface V2ProviderOptions {
  id: string;
  realm: string;
  flows: readonly PaymentFlow[];
  /** The sign type new orders are placed with (PAY_SIGN_TYPE for the social platform). */
  signType: () => SignType;
  notifyUrl: (kind: 'pay' | 'refund') => string;
  picks?: PaymentProvider['picks'];
  profitSharing?: ProfitSharing;
  dailyBill?: DailyBill;
  accountOf?: PaymentProvider['accountOf'];
  /** Whether it charges payers' payment codes (`pay/micropay`, `secapi/pay/reverse`; 7.4). */
  codes?: boolean;
}

export class V2Provider implements PaymentProvider {
  readonly id: string;
  readonly realm: string;
  readonly flows: readonly PaymentFlow[];
  readonly picks?: PaymentProvider['picks'];
  readonly profitSharing?: ProfitSharing;
  readonly dailyBill?: DailyBill;
  readonly accountOf?: PaymentProvider['accountOf'];
  readonly codePayment?: CodePayment;
  readonly notifications: NotificationReader;
  private readonly calls: OrderCalls;

  constructor(
    private readonly adapter: ChannelAdapter,
    private readonly opts: V2ProviderOptions,
  ) {
    this.id = opts.id;
    this.realm = opts.realm;
    this.flows = opts.flows;
    this.picks = opts.picks;
    this.profitSharing = opts.profitSharing;
    this.dailyBill = opts.dailyBill;
    this.accountOf = opts.accountOf;
    this.calls = v2OrderCalls(adapter, opts.notifyUrl);
    this.notifications = v2Notifications(() => this.adapter.endpoint());
    if (opts.codes) {
      const codeCalls = v2CodeCalls(adapter);
      this.codePayment = codePaymentOf(
        () => codeCalls,
        () => adapter.endpoint().clock.now(),
      );
    }
  }

  get channel(): PaymentChannel {
    return this.adapter.channel;
  }

  signType(): string {
    return this.opts.signType();
  }

  merchant(params: Parameters<PaymentProvider['merchant']>[0], flow: PaymentFlow, openId?: string) {
    return this.adapter.merchantFields(params, FLOW_COLUMN[flow] as TradeType, openId) as unknown as Record<string, string>;
  }

  async placeOrder(co: PayChannelOrdersTable, order: Parameters<PaymentProvider['placeOrder']>[1]) {
    return outcome('order', await this.calls.unifiedOrder(co, order), (f) => placedOf(co.trade_type, f, true));
  }

  async queryOrder(co: PayChannelOrdersTable) {
    return outcome('order', await this.calls.orderQuery(co), (f) => paymentFacts(co, f, this.adapter.endpoint().clock.now()));
  }

  async closeOrder(co: PayChannelOrdersTable) {
    return outcome('order', await this.calls.closeOrder(co), () => ({}));
  }

  async refund(r: Parameters<PaymentProvider['refund']>[0], co: PayChannelOrdersTable) {
    return outcome('refund', await this.calls.refund(r, co), (f) => ({ refundId: f.refund_id ?? null }));
  }

  async queryRefund(r: Parameters<PaymentProvider['queryRefund']>[0], co: PayChannelOrdersTable) {
    return outcome('refund', await this.calls.refundQuery(r, co), (f) => refundFacts(r.out_refund_no, f));
  }

  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram'): MiniProgramPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'app'): AppPayArgs;
  payerArgs(co: PayChannelOrdersTable, flow: 'miniProgram' | 'app'): MiniProgramPayArgs | AppPayArgs {
    if (co.sign_type === V3_SIGN_TYPE) throw new KitError('channel_unavailable', 'this order was placed over API v3; set PAY_PROTOCOL=v3 to pay it');
    const signType = co.sign_type as SignType;
    const key = this.adapter.endpoint().key;
    const merchant = merchantOf(co);
    if (flow === 'miniProgram') {
      const now = this.adapter.endpoint().clock.now();
      const args = { timeStamp: Math.floor(now / 1000), nonceStr: nonce(), package: `prepay_id=${co.channel_prepay_id}`, signType };
      const paySign = signFields({ appId: this.adapter.payerAppId(merchant), ...args }, key, signType);
      return { ...args, paySign };
    }
    const ids = this.adapter.appArgsIds(merchant, 'v2');
    const fields = {
      appid: ids.appid,
      partnerid: ids.partnerid,
      prepayid: co.channel_prepay_id!,
      package: 'Sign=WXPay' as const,
      noncestr: nonce(),
      timestamp: String(Math.floor(this.adapter.endpoint().clock.now() / 1000)),
    };
    return { ...fields, sign: signFields(fields, key, signType) };
  }

  isRetryable(refusal: Refusal): boolean {
    return isRetryable(refusal);
  }
}

/** Protocol v2's notifications: XML in; XML `SUCCESS` stops the repeats, `FAIL` asks for them. */
export function v2Notifications(endpoint: () => Pick<ProtocolEndpoint, 'key' | 'clock'>): NotificationReader {
  const key = () => endpoint().key;
  return {
    async read(kind, req, lookup): Promise<KitEvent> {
      if (kind === 'pay') {
        let n: Fields;
        try {
          n = parseXml(req.body);
        } catch {
          return { event: 'refused', reason: 'unreadable XML' };
        }
        if (n.return_code !== 'SUCCESS') return { event: 'refused', reason: 'return_code is not SUCCESS' };
        const co = n.out_trade_no ? await lookup.channelOrder(n.out_trade_no) : undefined;
        if (!co) return { event: 'refused', reason: 'unknown out_trade_no', orderNo: n.out_trade_no };
        const problem = payNotificationProblem(n, { sign_type: co.sign_type, total_cents: co.total_cents, merchant: merchantOf(co) }, key());
        if (problem) return { event: 'refused', reason: problem, orderNo: n.out_trade_no };
        if (n.result_code !== 'SUCCESS') return { event: 'not_paid' };
        return { event: 'paid', order: co, facts: paidFacts(n, endpoint().clock.now()) };
      }
      // A refund notification: its `req_info` only decrypts with our key, which proves its origin.
      let info: Fields;
      try {
        const n = parseXml(req.body);
        if (n.return_code !== 'SUCCESS' || !n.req_info) return { event: 'refused', reason: 'no req_info' };
        info = decryptReqInfo(n.req_info, key());
      } catch {
        return { event: 'refused', reason: 'req_info does not decrypt with our key' };
      }
      return refundEvent(info, lookup);
    },
    answer(outcome, message) {
      const ack = outcome === 'ack';
      return {
        status: ack ? 200 : outcome === 'failed' ? 500 : 400,
        type: 'application/xml',
        body: toXml({ return_code: ack ? 'SUCCESS' : 'FAIL', return_msg: ack ? 'OK' : message }),
      };
    },
  };
}

/** A refund's outcome in protocol fields (v2's decrypted `req_info`, or v3's resource read into them), checked against our refund. */
export async function refundEvent(info: Fields, lookup: Parameters<NotificationReader['read']>[2]): Promise<KitEvent> {
  const refund = info.out_refund_no ? await lookup.refund(info.out_refund_no) : undefined;
  if (!refund) return { event: 'refused', reason: 'unknown out_refund_no', orderNo: info.out_trade_no };
  const co = await lookup.channelOrder(refund.out_trade_no);
  const problem = refundNotificationProblem(info, refund, co?.total_cents ?? -1);
  if (problem) return { event: 'refused', reason: problem, orderNo: info.out_trade_no };
  return {
    event: 'refund',
    refund,
    outcome: info.refund_status === 'SUCCESS' ? 'succeeded' : 'failed',
    refundId: info.refund_id ?? null,
    stateText: info.refund_status ?? '',
  };
}
