/**
 * 4.3–4.5: the arguments a payer's scan-code, mini-program or app payment needs. Only an `active`
 * order gets them; each request reuses (or places) the order's one payable channel order, and the
 * mini-program and app arguments are signed here: with the channel key on protocol v2, with the
 * merchant's RSA key (`signType: "RSA"`) on API v3.
 */
import type { Clock } from '@kit/shared/clock';
import {
  KitError,
  PAY_VERSION,
  type AppPayResponse,
  type ChannelParams,
  type MiniProgramPayResponse,
  type NativePayArgs,
  type NativePayResponse,
} from '@kit/shared';
import { subMerchantDisabled } from '../merchants/disabled';
import type { MerchantService } from '../merchants/merchant-service';
import type { PrepayService } from '../orders/prepay-service';
import { orderVisibleTo } from '../orders/order-visibility';
import type { ChannelOrders } from './channel-orders';
import type { CodePayments } from './code-payments';
import type { PaymentStore } from './payment-store';
import type { Providers } from './providers/in-use';
import { refusalText, type ChannelName, type PaymentFlow, type PaymentProvider } from './providers/provider';
import { isOverdue } from '../orders/order-expiry';

type OrderRow = NonNullable<Awaited<ReturnType<PaymentStore['orderWithMerchants']>>>;

export class PaymentArgs {
  constructor(
    private readonly store: PaymentStore,
    private readonly prepay: PrepayService,
    private readonly merchants: MerchantService,
    private readonly providers: Providers,
    private readonly channelOrders: ChannelOrders,
    private readonly clock: Clock,
    /** The payer's payment code at the counter (7.4). */
    private readonly codes?: CodePayments,
  ) {}

  /**
   * Any way to pay (design 7.2): the way's declaration says which flow it places and how its
   * provider is chosen — by the merchant's parameters among the flow's providers (4.3–4.5), or its
   * wallet's own provider, asked for by name — and what of the input the payer's side needs.
   */
  async pay(
    appId: string,
    req: { prepayId: string; way: string } & Record<string, unknown>,
  ): Promise<{ version: typeof PAY_VERSION; status: 'success'; args: unknown }> {
    // The ways of the service's wallets (its providers': the kit's, and any the root was given).
    const way = this.providers.wallets.wayOf(req.way);
    if (!way) throw new KitError('invalid_request', `way: there is no way named "${req.way}"`);
    const payer = way.payer(req as never);
    if (way.chosenBy === 'code') {
      if (!this.codes || !payer.authCode) throw new KitError('channel_unavailable', `way ${way.name} is not served here`);
      // The code's digits name its wallet: a code of none is refused before the order is read.
      const provider = this.codes.providerOf(payer.authCode);
      return this.codes.pay(provider, await this.payable(appId, req.prepayId), { authCode: payer.authCode, deviceId: payer.deviceId });
    }
    if (way.flow === 'code') throw new Error(`way ${way.name}: a code is chosen by its digits`);
    if (way.chosenBy === 'wallet') return this.walletVia(appId, req.prepayId, this.providers.ofWay(way.name).channel, way.flow, payer);
    if (way.flow === 'scan') return this.native(appId, req.prepayId);
    if (way.flow === 'miniProgram') return this.miniProgram(appId, req.prepayId, payer.openId!);
    if (way.flow === 'app') return this.app(appId, req.prepayId, payer.enableProfitSharing ?? false);
    throw new Error(`way ${way.name}: flow ${way.flow} is not chosen by parameters`);
  }

  /** 4.3: scan-code payment; `args` is the channel's answer to the order, with `code_url`. */
  async native(appId: string, prepayId: string): Promise<NativePayResponse> {
    const order = await this.payable(appId, prepayId);
    const co = await this.channelOrder(order, 'scan', null, 'by-parameters');
    return { version: PAY_VERSION, status: 'success', args: JSON.parse(co.answer_json!) as NativePayArgs };
  }

  /**
   * 6.3: a wallet's own scan-code endpoint (`alipayNative`): the code of the provider of `channel`,
   * which is asked for by name, never as the social flows' default. `args` is what its order call
   * gave (`qr_code` for Alipay).
   */
  nativeVia<A>(appId: string, prepayId: string, channel: ChannelName): Promise<{ version: typeof PAY_VERSION; status: 'success'; args: A }> {
    return this.walletVia<A>(appId, prepayId, channel, 'scan');
  }

  /**
   * 6.3: a wallet's own endpoints (`alipayNative`, `alipayMini`, `alipayApp`, `alipayWap`): the
   * provider of `channel`, asked for by name, places (or reuses) the order's one payable channel
   * order for the flow (a payer switching flows closes the other one first, as 4.3–4.5 do) and
   * gives the payer's arguments in its platform's words. `openId` names the payer of `walletMini`;
   * `returnUrl` is where a `wap` page sends the payer back.
   */
  async walletVia<A>(
    appId: string,
    prepayId: string,
    channel: ChannelName,
    flow: PaymentFlow,
    payer: { openId?: string; returnUrl?: string } = {},
  ): Promise<{ version: typeof PAY_VERSION; status: 'success'; args: A }> {
    const order = await this.payable(appId, prepayId);
    const provider = this.providers.get(channel);
    if (!provider.flows.includes(flow)) throw new KitError('channel_unavailable', `payment channel ${channel} does not take ${flow} payments`);
    const merchant = provider.merchant(await this.merchants.effectivePaymentParams(order.sub_merchant_id, channel), flow, payer.openId);
    const openId = payer.openId ?? null;
    const co = await this.channelOrders.payableFor(order, { provider, flow, openId, profitSharing: false, merchant });
    const args = provider.walletArgs ? provider.walletArgs(co, order, flow, { returnUrl: payer.returnUrl }) : JSON.parse(co.answer_json!);
    return { version: PAY_VERSION, status: 'success', args: args as A };
  }

  /**
   * The open id of a wallet's payer from the login code its mini-program got (`walletMini`):
   * `mp_login_failed` when the platform refuses the code.
   */
  async walletPayer(channel: ChannelName, code: string): Promise<string> {
    const login = this.providers.get(channel).payerLogin;
    if (!login) throw new KitError('channel_unavailable', `payment channel ${channel} has no payer login`);
    const answer = await login.openIdFor(code);
    if (!answer.ok) throw new KitError('mp_login_failed', `the login code was refused (${refusalText(answer.refusal)}); log in again`);
    return answer.openId;
  }

  /** The open id of the payer of a way its wallet serves itself (`walletMini`), from its mini-program's login code. */
  wayPayer(way: string, code: string): Promise<string> {
    return this.walletPayer(this.providers.ofWay(way).channel, code);
  }

  /**
   * 4.4: mini-program payment, through the provider the sub-merchant's (or its parent's) parameters
   * pick (the card acquirer's), otherwise the flow's default (the social platform).
   */
  async miniProgram(appId: string, prepayId: string, openId: string): Promise<MiniProgramPayResponse> {
    const order = await this.payable(appId, prepayId);
    const co = await this.channelOrder(order, 'miniProgram', openId, 'by-parameters');
    return { version: PAY_VERSION, status: 'success', args: this.providers.get(co.channel).payerArgs(co, 'miniProgram') };
  }

  /** 4.5: app payment. Profit sharing is requested from the channel only for contracted merchants. */
  async app(appId: string, prepayId: string, enableProfitSharing = false): Promise<AppPayResponse> {
    const order = await this.payable(appId, prepayId);
    const co = await this.channelOrder(order, 'app', null, enableProfitSharing);
    return { version: PAY_VERSION, status: 'success', args: this.providers.get(co.channel).payerArgs(co, 'app') };
  }

  /**
   * The payable channel order for this flow. Profit sharing (4.8) is asked of a provider that shares
   * profits, only for contracted merchants: on 4.5 when the caller asks for it, on 4.3 and 4.4 when
   * the effective parameters say `profitSharing: true`; otherwise ignored.
   */
  private async channelOrder(order: OrderRow, flow: PaymentFlow, openId: string | null, sharing: boolean | 'by-parameters') {
    const paramsOf = (channel: ChannelName) => this.merchants.effectivePaymentParams(order.sub_merchant_id, channel);
    const provider: PaymentProvider = await this.providers.forFlow(flow, paramsOf);
    // Checked first so that a merchant without parameters gets a clear answer and nothing changes.
    const params = await paramsOf(provider.channel);
    const merchant = provider.merchant(params, flow, openId ?? undefined);
    const contracted = order.profit_sharing_contracted === 1 || order.parent_profit_sharing_contracted === 1;
    const asked = sharing === 'by-parameters' ? (params as Partial<ChannelParams['SocialNative']>).profitSharing === true : sharing;
    const profitSharing = provider.profitSharing !== undefined && contracted && asked;
    return this.channelOrders.payableFor(order, { provider, flow, openId, profitSharing, merchant });
  }

  /** The order, readable by `appId` (same visibility as 4.2) and still payable. */
  private async payable(appId: string, prepayId: string): Promise<OrderRow> {
    const order = await this.store.orderWithMerchants(prepayId);
    if (!order || !orderVisibleTo(order, appId)) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    if (isOverdue(order, this.clock.now())) {
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
