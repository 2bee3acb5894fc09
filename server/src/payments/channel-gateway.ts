/**
 * The calls the service makes to a payment channel (protocol v2), one gateway per channel. Each
 * call is built from what the service stored when the channel order or refund was created, signed
 * with the sign type that order was placed with, and names the merchant the way the channel wants.
 */
import { KitError, type PaymentChannel } from '@kit/shared';
import type { PayChannelOrdersTable, PayRefundsTable } from '../db/schema';
import { definedOnly, type ChannelAdapter, type Gateways, type MerchantFields, type Realm } from './channels';
import { callProtocol, type ProtocolAnswer, type ProtocolOp } from './protocol/client';
import type { SignType } from './protocol/sign';
import { formatChinaTime } from './protocol/time';
import type { Fields } from './protocol/xml';

/** What the unified order needs to know about the prepay order. */
export interface OrderForChannel {
  prepay_id: string;
  display_name: string;
  total_cents: number;
  expire_at: number;
}

export class ChannelGateway {
  constructor(
    readonly adapter: ChannelAdapter,
    private readonly gateways: Gateways,
  ) {}

  get channel(): PaymentChannel {
    return this.adapter.channel;
  }

  get realm(): Realm {
    return this.adapter.realm;
  }

  /** Where the channel sends this channel's notifications. */
  notifyUrl(kind: 'pay' | 'refund'): string {
    const base = this.gateways.publicUrl();
    if (!base) throw new KitError('channel_unavailable', 'the service does not know its public URL yet (PUBLIC_URL)');
    return `${base}/pay-notify/${this.adapter.realm}/${kind}`;
  }

  /** The channel's key (it also signs the arguments handed to payers). */
  key(): string {
    return this.adapter.endpoint().key;
  }

  /** Places the channel order; repeating it with the same `out_trade_no` and fields gives the same order. */
  unifiedOrder(co: PayChannelOrdersTable, order: OrderForChannel): Promise<ProtocolAnswer> {
    const request: Fields = {
      ...definedOnly(merchantOf(co)),
      body: truncateBytes(order.display_name, 120),
      attach: order.prepay_id,
      out_trade_no: co.out_trade_no,
      total_fee: String(co.total_cents),
      fee_type: 'CNY',
      spbill_create_ip: '127.0.0.1',
      time_start: formatChinaTime(co.created_at),
      // The channel refuses late payments by itself.
      time_expire: formatChinaTime(order.expire_at),
      notify_url: this.notifyUrl('pay'),
      trade_type: co.trade_type,
    };
    if (co.trade_type === 'NATIVE') request.product_id = order.prepay_id;
    if (co.profit_sharing) request.profit_sharing = 'Y';
    return this.call('unifiedOrder', request, co);
  }

  orderQuery(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.call('orderQuery', { ...this.ids(co), out_trade_no: co.out_trade_no }, co);
  }

  closeOrder(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.call('closeOrder', { ...this.ids(co), out_trade_no: co.out_trade_no }, co);
  }

  /** Full refund; the same `out_refund_no` sent again is the same refund at the channel. */
  refund(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.call(
      'refund',
      {
        ...this.ids(co),
        ...(co.transaction_id ? { transaction_id: co.transaction_id } : {}),
        out_trade_no: co.out_trade_no,
        out_refund_no: r.out_refund_no,
        total_fee: String(co.total_cents),
        refund_fee: String(r.refund_cents),
        refund_fee_type: 'CNY',
        notify_url: this.notifyUrl('refund'),
      },
      co,
    );
  }

  refundQuery(r: PayRefundsTable, co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.call('refundQuery', { ...this.ids(co), out_refund_no: r.out_refund_no }, co);
  }

  // ---- profit sharing (4.8): the platform takes these signed with HMAC-SHA256 only -------------

  /** Adds a receiver for the merchant numbered `merchant.sub_mch_id` (idempotent at the channel). */
  addReceiver(merchant: MerchantFields, receiver: { type: string; account: string; name?: string | null; relationType: string }): Promise<ProtocolAnswer> {
    const json = { type: receiver.type, account: receiver.account, ...(receiver.name ? { name: receiver.name } : {}), relation_type: receiver.relationType };
    return this.sharing('psAddReceiver', { ...this.adapter.requestIds(merchant), receiver: JSON.stringify(json) });
  }

  removeReceiver(merchant: MerchantFields, receiver: { type: string; account: string }): Promise<ProtocolAnswer> {
    return this.sharing('psRemoveReceiver', {
      ...this.adapter.requestIds(merchant),
      receiver: JSON.stringify({ type: receiver.type, account: receiver.account }),
    });
  }

  /** One split of a paid order (amounts in cents); with `finish`, the channel also releases the rest. */
  split(
    co: PayChannelOrdersTable,
    outOrderNo: string,
    receivers: Array<{ type: string; account: string; amount: number; description: string }>,
    finish: boolean,
  ): Promise<ProtocolAnswer> {
    return this.sharing(finish ? 'psSplitAndFinish' : 'psSplit', {
      ...this.ids(co),
      transaction_id: co.transaction_id ?? '',
      out_order_no: outOrderNo,
      receivers: JSON.stringify(receivers),
    });
  }

  querySplit(co: PayChannelOrdersTable, outOrderNo: string): Promise<ProtocolAnswer> {
    return this.sharing('psQuery', { ...this.ids(co), transaction_id: co.transaction_id ?? '', out_order_no: outOrderNo });
  }

  /** Ends the order's sharing: `amount` (what is still frozen) goes to the merchant. */
  finishSharing(co: PayChannelOrdersTable, outOrderNo: string, amount: number, description: string): Promise<ProtocolAnswer> {
    return this.sharing('psFinish', {
      ...this.ids(co),
      transaction_id: co.transaction_id ?? '',
      out_order_no: outOrderNo,
      amount: String(amount),
      description,
    });
  }

  /** What of the order is still frozen for sharing (`unsplit_amount`, cents). */
  unsplitAmount(co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return this.sharing('psAmount', { ...this.ids(co), transaction_id: co.transaction_id ?? '' });
  }

  private ids(co: PayChannelOrdersTable): Record<string, string> {
    return this.adapter.requestIds(merchantOf(co));
  }

  private call(op: ProtocolOp, request: Fields, co: PayChannelOrdersTable): Promise<ProtocolAnswer> {
    return callProtocol(this.adapter.endpoint(), op, request, co.sign_type as SignType);
  }

  private sharing(op: ProtocolOp, request: Fields): Promise<ProtocolAnswer> {
    return callProtocol(this.adapter.endpoint(), op, request, 'HMAC-SHA256');
  }
}

/** The gateways of the channels this service speaks. */
export class Channels {
  private readonly byChannel = new Map<PaymentChannel, ChannelGateway>();
  private readonly byRealm = new Map<Realm, ChannelGateway>();

  constructor(
    adapters: ChannelAdapter[],
    readonly gateways: Gateways,
  ) {
    for (const a of adapters) {
      const g = new ChannelGateway(a, gateways);
      this.byChannel.set(a.channel, g);
      this.byRealm.set(a.realm, g);
    }
  }

  get(channel: PaymentChannel | string): ChannelGateway {
    const g = this.byChannel.get(channel as PaymentChannel);
    if (!g) throw new KitError('channel_unavailable', `payment channel ${channel} is not available`);
    return g;
  }

  has(channel: PaymentChannel): boolean {
    return this.byChannel.has(channel);
  }

  forRealm(realm: string): ChannelGateway | undefined {
    return this.byRealm.get(realm as Realm);
  }
}

export function merchantOf(co: Pick<PayChannelOrdersTable, 'merchant_json'>): MerchantFields {
  return JSON.parse(co.merchant_json) as MerchantFields;
}

/** The protocol's `body` field is limited in bytes; cut on a character boundary. */
function truncateBytes(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out || '-';
}
