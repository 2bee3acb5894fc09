/**
 * 4.3–4.5: the arguments a payer's scan-code, mini-program or app payment needs. Only an `active`
 * order gets them; each request reuses (or places) the order's one payable channel order, and the
 * mini-program and app arguments are signed here: with the channel key on protocol v2, with the
 * merchant's RSA key (`signType: "RSA"`) on API v3.
 */
import {
  KitError,
  PAY_VERSION,
  type AppPayResponse,
  type MiniProgramPayResponse,
  type NativePayArgs,
  type NativePayResponse,
  type SocialNativeParams,
} from '@kit/shared';
import { subMerchantDisabled } from '../merchants/disabled';
import type { MerchantService } from '../merchants/merchant-service';
import type { PrepayService } from '../orders/prepay-service';
import { orderVisibleTo } from '../orders/order-visibility';
import type { TradeType } from './channels';
import type { ChannelGateway, Channels } from './channel-gateway';
import { merchantOf, V3_SIGN_TYPE } from './channel-gateway';
import type { ChannelOrders } from './channel-orders';
import type { PaymentStore } from './payment-store';
import { nonce } from './protocol/client';
import { signFields, type SignType } from './protocol/sign';
import { isOverdue } from '../orders/order-expiry';

type OrderRow = NonNullable<Awaited<ReturnType<PaymentStore['orderWithMerchants']>>>;

export class PaymentArgs {
  constructor(
    private readonly store: PaymentStore,
    private readonly prepay: PrepayService,
    private readonly merchants: MerchantService,
    private readonly channels: Channels,
    private readonly channelOrders: ChannelOrders,
  ) {}

  /** 4.3: scan-code payment; `args` is the channel's unified-order answer with `code_url`. */
  async native(appId: string, prepayId: string): Promise<NativePayResponse> {
    const order = await this.payable(appId, prepayId);
    const co = await this.channelOrder(order, this.channels.get('SocialNative'), 'NATIVE', null, 'by-parameters');
    return { version: PAY_VERSION, status: 'success', args: JSON.parse(co.answer_json!) as NativePayArgs };
  }

  /**
   * 4.4: mini-program payment. The card-network channel is used when the sub-merchant (or its
   * parent) has its parameters; otherwise the social-app channel, the default.
   */
  async miniProgram(appId: string, prepayId: string, openId: string): Promise<MiniProgramPayResponse> {
    const order = await this.payable(appId, prepayId);
    const card = this.channels.has('SocialCardNetworkBizSmall')
      ? await this.merchants.effectivePaymentParams(order.sub_merchant_id, 'SocialCardNetworkBizSmall')
      : {};
    const gateway = this.channels.get(card.cardNetworkBizMchId || card.terminalId ? 'SocialCardNetworkBizSmall' : 'SocialNative');
    const co = await this.channelOrder(order, gateway, 'JSAPI', openId, 'by-parameters');
    const appIdForSign = gateway.adapter.payerAppId(merchantOf(co));
    if (co.sign_type === V3_SIGN_TYPE) {
      if (!gateway.v3) throw new KitError('channel_unavailable', 'this order was placed over API v3; set PAY_PROTOCOL=v3 to pay it');
      return { version: PAY_VERSION, status: 'success', args: gateway.v3.miniProgramArgs(appIdForSign, co.channel_prepay_id!) };
    }
    const signType = co.sign_type as SignType;
    const args = { timeStamp: Math.floor(Date.now() / 1000), nonceStr: nonce(), package: `prepay_id=${co.channel_prepay_id}`, signType };
    const paySign = signFields({ appId: appIdForSign, ...args }, gateway.key(), signType);
    return { version: PAY_VERSION, status: 'success', args: { ...args, paySign } };
  }

  /** 4.5: app payment. Profit sharing is requested from the channel only for contracted merchants. */
  async app(appId: string, prepayId: string, enableProfitSharing = false): Promise<AppPayResponse> {
    const order = await this.payable(appId, prepayId);
    const gateway = this.channels.get('SocialNative');
    const co = await this.channelOrder(order, gateway, 'APP', null, enableProfitSharing);
    const ids = gateway.adapter.appArgsIds(merchantOf(co), co.sign_type === V3_SIGN_TYPE ? 'v3' : 'v2');
    if (co.sign_type === V3_SIGN_TYPE) {
      if (!gateway.v3) throw new KitError('channel_unavailable', 'this order was placed over API v3; set PAY_PROTOCOL=v3 to pay it');
      return { version: PAY_VERSION, status: 'success', args: gateway.v3.appArgs(ids, co.channel_prepay_id!) };
    }
    const fields = {
      appid: ids.appid,
      partnerid: ids.partnerid,
      prepayid: co.channel_prepay_id!,
      package: 'Sign=WXPay' as const,
      noncestr: nonce(),
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const sign = signFields(fields, gateway.key(), co.sign_type as SignType);
    return { version: PAY_VERSION, status: 'success', args: { ...fields, sign } };
  }

  /**
   * The payable channel order for this flow. Profit sharing (4.8) is asked of the social channel
   * only for contracted merchants: on 4.5 when the caller asks for it, on 4.3 and 4.4 when the
   * effective SocialNative parameters say `profitSharing: true`; otherwise ignored.
   */
  private async channelOrder(order: OrderRow, gateway: ChannelGateway, tradeType: TradeType, openId: string | null, sharing: boolean | 'by-parameters') {
    // Checked first so that a merchant without parameters gets a clear answer and nothing changes.
    const params = await this.merchants.effectivePaymentParams(order.sub_merchant_id, gateway.channel);
    const merchant = gateway.adapter.merchantFields(params, tradeType, openId ?? undefined);
    const contracted = order.profit_sharing_contracted === 1 || order.parent_profit_sharing_contracted === 1;
    const asked = sharing === 'by-parameters' ? (params as Partial<SocialNativeParams>).profitSharing === true : sharing;
    const profitSharing = gateway.channel === 'SocialNative' && contracted && asked;
    return this.channelOrders.payableFor(order, { gateway, tradeType, openId, profitSharing, merchant });
  }

  /** The order, readable by `appId` (same visibility as 4.2) and still payable. */
  private async payable(appId: string, prepayId: string): Promise<OrderRow> {
    const order = await this.store.orderWithMerchants(prepayId);
    if (!order || !orderVisibleTo(order, appId)) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    if (isOverdue(order)) {
      const expired = await this.prepay.expire(prepayId);
      throw new KitError('order_not_active', `prepay order "${prepayId}" ${expired ? 'has expired' : 'is no longer active'}; start a new payment`);
    }
    if (order.status !== 'active') throw new KitError('order_not_active', `prepay order "${prepayId}" is ${order.status}, not active; start a new payment`);
    const disabled = subMerchantDisabled({
      id: order.sub_merchant_id,
      disabled: order.disabled,
      parentId: order.merchant_id,
      parentDisabled: order.parent_disabled,
    });
    if (disabled) throw disabled;
    return order;
  }
}
