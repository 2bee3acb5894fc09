/**
 * The calls the service makes to a payment channel, one gateway per channel module: the order calls
 * of the channel's protocol (API v3 when the module speaks it and `PAY_PROTOCOL=v3`, otherwise
 * protocol v2: channels/v2-order-calls.ts) and its profit-sharing calls, and where the channel
 * sends its notifications.
 */
import { KitError, type PaymentChannel } from '@kit/shared';
import type { PayChannelOrdersTable, PayRefundsTable } from '../db/schema';
import type { Config } from '../config';
import {
  merchantOf,
  v2OrderCalls,
  type BillSource,
  type ChannelAdapter,
  type ChannelModule,
  type ChannelEndpoints,
  type OrderCalls,
  type OrderForChannel,
  type ProfitSharingCalls,
  type Realm,
  type V3Side,
} from './channels';
import type { V3CallLog } from './channels/social-native/v3/client';
import type { ProtocolAnswer } from './protocol/client';
import type { SignType } from './protocol/sign';

// Where the rest of the payment code has always found them.
export type { OrderForChannel };

/** What a channel order placed over API v3 records as its sign type: its payer arguments are signed with the merchant's RSA key. */
export const V3_SIGN_TYPE = 'RSA';

export class ChannelGateway {
  private readonly calls: OrderCalls;
  private readonly profitSharing?: ProfitSharingCalls;
  /** The channel's daily trade bill, when it publishes one. */
  readonly bills?: BillSource;
  /** Present when the channel speaks API v3. */
  readonly v3?: V3Side;

  constructor(
    readonly adapter: ChannelAdapter<Realm>,
    private readonly endpoints: ChannelEndpoints,
    v2: { profitSharing?: ProfitSharingCalls; bills?: BillSource },
    v3?: (notifyUrl: (kind: 'pay' | 'refund') => string) => V3Side | undefined,
  ) {
    const notifyUrl = (kind: 'pay' | 'refund') => this.notifyUrl(kind);
    this.v3 = v3?.(notifyUrl);
    this.calls = this.v3?.calls ?? v2OrderCalls(adapter, notifyUrl);
    this.profitSharing = this.v3?.calls ?? v2.profitSharing;
    this.bills = this.v3?.bills ?? v2.bills;
  }

  /** The sign type new channel orders record: RSA on v3, the configured v2 one otherwise. */
  signType(v2: SignType): string {
    return this.v3 ? V3_SIGN_TYPE : v2;
  }

  get channel(): PaymentChannel {
    return this.adapter.channel;
  }

  get realm(): Realm {
    return this.adapter.realm;
  }

  /** Where the channel sends this channel's notifications. */
  notifyUrl(kind: 'pay' | 'refund'): string {
    const base = this.endpoints.publicUrl();
    if (!base) throw new KitError('channel_unavailable', 'the service does not know its public URL yet (PUBLIC_URL)');
    return `${base}/pay-notify/${this.adapter.realm}/${kind}`;
  }

  /** The channel's key (it also signs the arguments handed to payers). */
  key(): string {
    return this.adapter.endpoint().key;
  }

  /** Places the channel order; repeating it with the same `out_trade_no` and fields gives the same order. */
  unifiedOrder(co: PayChannelOrdersTable, order: OrderForChannel): Promise<ProtocolAnswer> {
    return this.calls.unifiedOrder(co, order);
  }

  orderQuery(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.calls.orderQuery(co);
  }

  closeOrder(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.calls.closeOrder(co);
  }

  /** Full refund; the same `out_refund_no` sent again is the same refund at the channel. */
  refund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.calls.refund(r, co);
  }

  refundQuery(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.calls.refundQuery(r, co);
  }

  /** The channel's profit-sharing calls (4.8); `channel_unavailable` for a channel that does not share profits. */
  sharing(): ProfitSharingCalls {
    if (!this.profitSharing) throw new KitError('channel_unavailable', `payment channel ${this.channel} does not share profits`);
    return this.profitSharing;
  }
}

/** The gateways of the channels this service speaks. */
export class Channels {
  private readonly byChannel = new Map<PaymentChannel, ChannelGateway>();
  private readonly byRealm = new Map<Realm, ChannelGateway>();

  constructor(
    modules: readonly ChannelModule<Realm>[],
    config: Config,
    readonly endpoints: ChannelEndpoints,
    log?: V3CallLog,
  ) {
    for (const m of modules) {
      const a = m.adapter(config, endpoints);
      const v3 = m.v3 && ((notifyUrl: (kind: 'pay' | 'refund') => string) => m.v3!(config, () => endpoints.gatewayOf(m), notifyUrl, log));
      const g = new ChannelGateway(a, endpoints, { profitSharing: m.profitSharing?.(a), bills: m.bills?.(a, config) }, v3);
      this.byChannel.set(a.channel, g);
      this.byRealm.set(a.realm, g);
    }
  }

  get(channel: PaymentChannel | string): ChannelGateway {
    const g = this.byChannel.get(channel as PaymentChannel);
    if (!g) throw new KitError('channel_unavailable', `payment channel ${channel} is not available`);
    return g;
  }

  /** The gateways of the channels that publish a daily bill. */
  withBills(): ChannelGateway[] {
    return [...this.byChannel.values()].filter((g) => g.bills);
  }

  has(channel: PaymentChannel): boolean {
    return this.byChannel.has(channel);
  }

  forRealm(realm: string): ChannelGateway | undefined {
    return this.byRealm.get(realm as Realm);
  }
}

// Where the rest of the payment code has always found it.
export { merchantOf };
