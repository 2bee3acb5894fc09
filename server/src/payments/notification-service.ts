/**
 * Channel notifications (protocol XML from `/pay-notify/<realm>/{pay,refund}`). A notification is
 * taken only when it is genuine and matches the order or refund it names; then the settlement
 * records it. Anything else is refused and changes nothing; repeats are acknowledged.
 */
import type { Logger } from 'pino';
import type { Channels } from './channel-gateway';
import { merchantOf } from './channel-gateway';
import { paidFacts, payNotificationProblem, refundNotificationProblem } from './notification-checks';
import type { PaymentStore } from './payment-store';
import { decryptReqInfo } from './protocol/refund-info';
import { parseXml, type Fields } from './protocol/xml';
import type { Settlement } from './settlement';

export interface NotificationResult {
  /** Whether the channel may stop repeating it. */
  ack: boolean;
  msg: string;
}

const OK: NotificationResult = { ack: true, msg: 'OK' };

export class NotificationService {
  constructor(
    private readonly store: PaymentStore,
    private readonly channels: Channels,
    private readonly settlement: Settlement,
    private readonly log: Logger,
  ) {}

  /** A payment notification from the channel of `realm`. */
  async payment(realm: string, raw: Buffer | string): Promise<NotificationResult> {
    const gateway = this.channels.forRealm(realm);
    if (!gateway) return { ack: false, msg: 'unknown channel' };
    let n: Fields;
    try {
      n = parseXml(raw);
    } catch {
      return { ack: false, msg: 'unreadable XML' };
    }
    if (n.return_code !== 'SUCCESS') return { ack: false, msg: 'return_code is not SUCCESS' };
    const co = n.out_trade_no ? await this.store.channelOrder(n.out_trade_no) : undefined;
    if (!co || co.channel !== gateway.channel) return this.refused(realm, n, 'unknown out_trade_no');
    const problem = payNotificationProblem(n, { sign_type: co.sign_type, total_cents: co.total_cents, merchant: merchantOf(co) }, gateway.key());
    if (problem) return this.refused(realm, n, problem);
    if (n.result_code !== 'SUCCESS') return OK; // a failed payment changes nothing
    await this.settlement.recordPayment(co, paidFacts(n));
    return OK;
  }

  /** A refund notification: its `req_info` only decrypts with our key, which proves its origin. */
  async refund(realm: string, raw: Buffer | string): Promise<NotificationResult> {
    const gateway = this.channels.forRealm(realm);
    if (!gateway) return { ack: false, msg: 'unknown channel' };
    let info: Fields;
    try {
      const n = parseXml(raw);
      if (n.return_code !== 'SUCCESS' || !n.req_info) return { ack: false, msg: 'no req_info' };
      info = decryptReqInfo(n.req_info, gateway.key());
    } catch {
      return this.refused(realm, {}, 'req_info does not decrypt with our key');
    }
    const refund = info.out_refund_no ? await this.store.refundByNumber(info.out_refund_no) : undefined;
    if (!refund || refund.channel !== gateway.channel) return this.refused(realm, info, 'unknown out_refund_no');
    const co = await this.store.channelOrder(refund.out_trade_no);
    const problem = refundNotificationProblem(info, refund, co?.total_cents ?? -1);
    if (problem) return this.refused(realm, info, problem);
    if (info.refund_status === 'SUCCESS') await this.settlement.completeRefund(refund, info.refund_id ?? null);
    else await this.settlement.failRefund(refund, `channel: ${info.refund_status}`);
    return OK;
  }

  private refused(realm: string, n: Fields, why: string): NotificationResult {
    this.log.warn({ realm, outTradeNo: n.out_trade_no, why }, 'channel notification refused');
    return { ack: false, msg: why };
  }
}
