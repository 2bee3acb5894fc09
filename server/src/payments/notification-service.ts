/**
 * Channel notifications from `/pay-notify/<realm>/{pay,refund}`: protocol XML on v2, signed JSON
 * with an encrypted resource on API v3. A notification is taken only when it is genuine and
 * matches the order or refund it names; then the settlement records it, the same way for both
 * protocols (one transition, one callback). Anything else is refused and changes nothing; repeats
 * are acknowledged.
 */
import type { Logger } from 'pino';
import type { Channels } from './channel-gateway';
import { merchantOf } from './channel-gateway';
import { paidFacts, paidFieldsProblem, payNotificationProblem, refundNotificationProblem } from './notification-checks';
import type { PaymentStore } from './payment-store';
import { decryptReqInfo } from './protocol/refund-info';
import { parseXml, type Fields } from './protocol/xml';
import type { Settlement } from './settlement';
import type { SignedHeaders } from './channels/social-native/v3/verify';

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
    await this.settlement.recordPayment(co, paidFacts(n), 'notification');
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
    return this.refunded(realm, gateway.channel, info);
  }

  /** Whether the channel of `realm` speaks API v3 (its notifications are JSON, answered 204 or `{"code":"FAIL"}`). */
  isV3(realm: string): boolean {
    return this.channels.forRealm(realm)?.v3 !== undefined;
  }

  /**
   * An API v3 notification: headers verified over the raw body (probes, stale timestamps and forged
   * signatures refused; an unknown serial makes certificate mode fetch the certificates once), the
   * resource decrypted with the APIv3 key, then the same checks and settlement as on v2.
   */
  async v3(kind: 'pay' | 'refund', realm: string, headers: SignedHeaders, raw: Buffer): Promise<NotificationResult> {
    const gateway = this.channels.forRealm(realm);
    const v3 = gateway?.v3;
    if (!gateway || !v3) return { ack: false, msg: 'unknown channel' };
    const facts = await v3.notification(kind, headers, raw.toString('utf8'));
    if (!facts.ok) return this.refused(realm, {}, `${facts.reason}: ${facts.message}`);
    return kind === 'pay' ? this.paidV3(realm, facts.fields) : this.refunded(realm, gateway.channel, facts.fields);
  }

  private async paidV3(realm: string, n: Fields): Promise<NotificationResult> {
    const gateway = this.channels.forRealm(realm)!;
    const co = n.out_trade_no ? await this.store.channelOrder(n.out_trade_no) : undefined;
    if (!co || co.channel !== gateway.channel) return this.refused(realm, n, 'unknown out_trade_no');
    const problem = paidFieldsProblem(n, { sign_type: co.sign_type, total_cents: co.total_cents, merchant: merchantOf(co) });
    if (problem) return this.refused(realm, n, problem);
    // Only `TRANSACTION.SUCCESS` reaches here; its resource still has to say SUCCESS.
    if (n.trade_state !== 'SUCCESS') return this.refused(realm, n, `trade_state ${n.trade_state} in a payment notification`);
    await this.settlement.recordPayment(co, paidFacts(n), 'notification');
    return OK;
  }

  /** A refund's outcome as either protocol tells it, once decrypted: the same checks and settlement. */
  private async refunded(realm: string, channel: string, info: Fields): Promise<NotificationResult> {
    const refund = info.out_refund_no ? await this.store.refundByNumber(info.out_refund_no) : undefined;
    if (!refund || refund.channel !== channel) return this.refused(realm, info, 'unknown out_refund_no');
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
