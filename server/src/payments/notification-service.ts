/**
 * Notifications from `/pay-notify/<realm>/{pay,refund}`: the realm's provider reads the request
 * (verifies it, checks it against the order or refund it names) into a kit event, which the
 * settlement records the same way whoever the provider (one transition, one callback). Anything
 * refused changes nothing; repeats are acknowledged. The provider answers in its platform's terms.
 */
import type { Logger } from 'pino';
import type { PaymentStore } from './payment-store';
import type { Providers } from './providers/in-use';
import type { KitEvent, NotificationAnswer, NotificationLookup, PaymentProvider, RawNotification } from './providers/provider';
import type { Settlement } from './settlement';
import type { DuplicatePayments } from './duplicate-payments';

export interface NotificationResult {
  /** Whether the platform may stop repeating it. */
  ack: boolean;
  msg: string;
}

const OK: NotificationResult = { ack: true, msg: 'OK' };

export class NotificationService {
  constructor(
    private readonly store: PaymentStore,
    private readonly providers: Providers,
    private readonly settlement: Settlement,
    private readonly log: Logger,
    private readonly duplicates: DuplicatePayments,
  ) {}

  /** The provider of a notification route, or undefined for a realm no provider of this configuration has. */
  provider(realm: string): PaymentProvider | undefined {
    return this.providers.forRealm(realm);
  }

  /**
   * The answer to a notification posted to a realm no provider has: there is no platform to answer
   * in its terms, so it is refused as the first provider that answers refusals with a document does
   * (protocol v2's XML `FAIL`, what the route has always answered), else as plain text.
   */
  unknownRealm(): NotificationAnswer {
    for (const p of this.providers.all()) {
      const a = p.notifications.answer('refused', 'unknown channel');
      if (typeof a.body === 'string') return a;
    }
    return { status: 400, type: 'text/plain', body: 'unknown channel' };
  }

  /** A notification to the provider of `realm`, answered as its platform expects. */
  async handle(realm: string, kind: 'pay' | 'refund', req: RawNotification): Promise<NotificationAnswer> {
    const provider = this.providers.forRealm(realm);
    if (!provider) return this.unknownRealm();
    const result = await this.take(provider, kind, req);
    return provider.notifications.answer(result.ack ? 'ack' : 'refused', result.msg);
  }

  /** Reads and records a notification. */
  async take(provider: PaymentProvider, kind: 'pay' | 'refund', req: RawNotification): Promise<NotificationResult> {
    const event = await provider.notifications.read(kind, req, this.lookup(provider));
    return this.record(provider.realm, event);
  }

  private async record(realm: string, e: KitEvent): Promise<NotificationResult> {
    switch (e.event) {
      case 'refused':
        this.log.warn({ realm, outTradeNo: e.orderNo, why: e.reason }, 'channel notification refused');
        return { ack: false, msg: e.reason };
      case 'not_paid':
        return OK; // a failed payment changes nothing
      case 'paid':
        await this.settlement.recordPayment(e.order, e.facts, 'notification');
        return OK;
      case 'refund':
        // The automatic refund of a second payment is not the order's refund (4.6).
        if (this.duplicates.isDuplicateRefund(e.refund)) {
          if (e.outcome === 'succeeded') await this.duplicates.complete(e.refund, e.refundId);
          else await this.duplicates.fail(e.refund, `channel: ${e.stateText}`);
          return OK;
        }
        if (e.outcome === 'succeeded') await this.settlement.completeRefund(e.refund, e.refundId);
        else await this.settlement.failRefund(e.refund, `channel: ${e.stateText}`);
        return OK;
    }
  }

  /** The records a provider's notifications may name: its own channel's only. */
  private lookup(provider: PaymentProvider): NotificationLookup {
    return {
      channelOrder: async (no) => {
        const co = await this.store.channelOrder(no);
        return co && co.channel === provider.channel ? co : undefined;
      },
      refund: async (no) => {
        const r = (await this.store.refundByNumber(no)) ?? (await this.duplicates.refundByNumber(no));
        return r && r.channel === provider.channel ? r : undefined;
      },
    };
  }
}
