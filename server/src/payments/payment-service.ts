/**
 * Payments: the rules of 4.3–4.6 and of channel notifications. Argument requests place (or reuse)
 * one payable channel order per prepay order; a payment notification moves the order to `finish`
 * and writes the callback in the same transaction; a refund is claimed once per order and
 * completes when the channel's refund notification arrives.
 */
import type { Logger } from 'pino';
import {
  KitError,
  PAY_VERSION,
  type AppPayResponse,
  type MiniProgramPayResponse,
  type NativePayArgs,
  type NativePayResponse,
  type PaymentChannel,
  type RefundResponse,
} from '@kit/shared';
import { randomAlnum } from '../security/ids';
import { isUniqueViolation } from '../db/errors';
import type { PrepayService } from '../orders/prepay-service';
import type { OrderEvents } from '../orders/order-events';
import type { MerchantService } from '../merchants/merchant-service';
import type { CallbackService } from '../callbacks/callback-service';
import type { Transaction } from 'kysely';
import type { Database, PayChannelOrdersTable } from '../db/schema';
import type { ChannelAdapter, Gateways, MerchantFields, Realm, TradeType } from './channels';
import { CREATING_STALE_MS, type PaymentStore } from './payment-store';
import { callProtocol, nonce, type ProtocolEndpoint } from './protocol/client';
import { signFields, type SignType } from './protocol/sign';
import { formatChinaTime, parseChinaTime } from './protocol/time';
import { decryptReqInfo } from './protocol/refund-info';
import { parseXml, type Fields } from './protocol/xml';
import { payNotificationProblem, refundNotificationProblem } from './notifications';

type OrderRow = NonNullable<Awaited<ReturnType<PaymentStore['orderWithMerchants']>>>;

export interface NotificationResult {
  /** Whether the channel may stop repeating it. */
  ack: boolean;
  msg: string;
}

export interface PaymentOptions {
  signType: SignType;
}

export class PaymentService {
  private readonly byChannel: Map<PaymentChannel, ChannelAdapter>;
  private readonly byRealm: Map<Realm, ChannelAdapter>;

  constructor(
    private readonly store: PaymentStore,
    private readonly prepay: PrepayService,
    private readonly merchants: MerchantService,
    private readonly callbacks: CallbackService,
    events: OrderEvents,
    adapters: ChannelAdapter[],
    readonly gateways: Gateways,
    private readonly opts: PaymentOptions,
    private readonly log: Logger,
  ) {
    this.byChannel = new Map(adapters.map((a) => [a.channel, a]));
    this.byRealm = new Map(adapters.map((a) => [a.realm, a]));
    // An expired order must not stay payable at the channel.
    events.onChange((e) => {
      if (e.status === 'cancel') void this.closeForOrder(e.prepayId);
    });
  }

  // ---- 4.3–4.5 ---------------------------------------------------------------------------

  /** 4.3: scan-code payment; `args` is the channel's unified-order answer with `code_url`. */
  async nativeArgs(appId: string, prepayId: string): Promise<NativePayResponse> {
    const order = await this.payable(appId, prepayId);
    const co = await this.channelOrderFor(order, this.adapter('SocialNative'), 'NATIVE', null, false);
    return { version: PAY_VERSION, status: 'success', args: JSON.parse(co.answer_json!) as NativePayArgs };
  }

  /**
   * 4.4: mini-program payment. The card-network channel is used when the sub-merchant (or its
   * parent) has its parameters; otherwise the social-app channel, the default.
   */
  async miniProgramArgs(appId: string, prepayId: string, openId: string): Promise<MiniProgramPayResponse> {
    const order = await this.payable(appId, prepayId);
    const card = this.byChannel.get('SocialCardNetworkBizSmall');
    const cardParams = card ? await this.merchants.effectivePaymentParams(order.sub_merchant_id, 'SocialCardNetworkBizSmall') : {};
    const adapter = card && (cardParams.cardNetworkBizMchId || cardParams.terminalId) ? card : this.adapter('SocialNative');
    const co = await this.channelOrderFor(order, adapter, 'JSAPI', openId, false);
    const signType = co.sign_type as SignType;
    const merchant = JSON.parse(co.merchant_json) as MerchantFields;
    const args = {
      timeStamp: Math.floor(Date.now() / 1000),
      nonceStr: nonce(),
      package: `prepay_id=${co.channel_prepay_id}`,
      signType,
    };
    const paySign = signFields({ appId: adapter.payerAppId(merchant), ...args }, adapter.endpoint().key, signType);
    return { version: PAY_VERSION, status: 'success', args: { ...args, paySign } };
  }

  /** 4.5: app payment. Profit sharing is requested from the channel only for contracted merchants. */
  async appArgs(appId: string, prepayId: string, enableProfitSharing = false): Promise<AppPayResponse> {
    const order = await this.payable(appId, prepayId);
    const contracted = order.profit_sharing_contracted === 1 || order.parent_profit_sharing_contracted === 1;
    const adapter = this.adapter('SocialNative');
    const co = await this.channelOrderFor(order, adapter, 'APP', null, enableProfitSharing && contracted);
    const merchant = JSON.parse(co.merchant_json) as MerchantFields;
    const ids = adapter.appArgsIds(merchant);
    const fields = {
      appid: ids.appid,
      partnerid: ids.partnerid,
      prepayid: co.channel_prepay_id!,
      package: 'Sign=WXPay' as const,
      noncestr: nonce(),
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    const sign = signFields(fields, adapter.endpoint().key, co.sign_type as SignType);
    return { version: PAY_VERSION, status: 'success', args: { ...fields, sign } };
  }

  private adapter(channel: PaymentChannel): ChannelAdapter {
    const a = this.byChannel.get(channel);
    if (!a) throw new KitError('channel_unavailable', `payment channel ${channel} is not available`);
    return a;
  }

  /** The order, readable by `appId` (same visibility as 4.2) and still payable. */
  private async payable(appId: string, prepayId: string): Promise<OrderRow> {
    const order = await this.store.orderWithMerchants(prepayId);
    if (!order || !visibleTo(order, appId)) throw new KitError('not_found', `prepay order "${prepayId}" does not exist`);
    if (order.status === 'active' && order.expire_at <= Date.now()) {
      await this.prepay.expire(prepayId);
      throw new KitError('order_not_active', `prepay order "${prepayId}" has expired; start a new payment`);
    }
    if (order.status !== 'active') throw new KitError('order_not_active', `prepay order "${prepayId}" is ${order.status}, not active; start a new payment`);
    if (order.disabled || order.parent_disabled) throw new KitError('merchant_disabled', `sub-merchant "${order.sub_merchant_id}" is disabled`);
    return order;
  }

  /**
   * The payable channel order for these arguments: the existing one when it matches (same
   * channel, trade type, payer and profit sharing), otherwise the old one is closed at the channel
   * and a new one placed. A partial unique index allows one `creating`/`open` row per order, so
   * concurrent requests never leave two payable channel orders.
   */
  private async channelOrderFor(order: OrderRow, adapter: ChannelAdapter, tradeType: TradeType, openId: string | null, profitSharing: boolean): Promise<PayChannelOrdersTable> {
    // Checked first so that a merchant without parameters gets a clear answer and nothing changes.
    const params = await this.merchants.effectivePaymentParams(order.sub_merchant_id, adapter.channel);
    const merchant = adapter.merchantFields(params, tradeType, openId ?? undefined);
    const endpoint = adapter.endpoint();
    const notifyBase = this.gateways.publicUrl();
    if (!notifyBase) throw new KitError('channel_unavailable', 'the service does not know its public URL yet (PUBLIC_URL)');
    const deadline = Date.now() + endpoint.timeoutMs + 2_000;
    for (;;) {
      if (Date.now() > deadline) throw new KitError('channel_unavailable', 'another request for this order is still waiting for the channel; retry');
      const existing = await this.store.openChannelOrder(order.prepay_id);
      if (existing) {
        const same =
          existing.channel === adapter.channel &&
          existing.trade_type === tradeType &&
          (existing.open_id ?? null) === openId &&
          existing.profit_sharing === (profitSharing ? 1 : 0) &&
          existing.merchant_json === JSON.stringify(merchant);
        if (existing.state === 'open' && same) return existing;
        if (existing.state === 'creating') {
          if (Date.now() - existing.created_at > CREATING_STALE_MS && (await this.store.failStaleCreating(existing.out_trade_no))) {
            void this.closeAtChannel(existing).catch(() => undefined);
          } else {
            await sleep(25);
          }
          continue;
        }
        // A different payable channel order: close it first so that only one can be paid.
        const closed = await this.closeAtChannel(existing);
        if (!closed) throw new KitError('order_not_active', `prepay order "${order.prepay_id}" has just been paid`);
        continue;
      }
      const now = Date.now();
      const row: PayChannelOrdersTable = {
        out_trade_no: randomAlnum(28),
        prepay_id: order.prepay_id,
        channel: adapter.channel,
        trade_type: tradeType,
        sign_type: this.opts.signType,
        open_id: openId,
        profit_sharing: profitSharing ? 1 : 0,
        state: 'creating',
        total_cents: order.total_cents,
        merchant_json: JSON.stringify(merchant),
        channel_prepay_id: null,
        code_url: null,
        answer_json: null,
        transaction_id: null,
        paid_at: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await this.store.insertChannelOrder(row);
      } catch (e) {
        if (isUniqueViolation(e)) continue; // another request is placing one: use it
        throw e;
      }
      return this.placeAtChannel(row, order, adapter, endpoint, merchant, `${notifyBase}/pay-notify/${adapter.realm}/pay`);
    }
  }

  private async placeAtChannel(
    row: PayChannelOrdersTable,
    order: OrderRow,
    adapter: ChannelAdapter,
    endpoint: ProtocolEndpoint,
    merchant: MerchantFields,
    notifyUrl: string,
  ): Promise<PayChannelOrdersTable> {
    const request: Fields = {
      ...definedOnly(merchant),
      body: truncateBytes(order.display_name, 120),
      attach: order.prepay_id,
      out_trade_no: row.out_trade_no,
      total_fee: String(order.total_cents),
      fee_type: 'CNY',
      spbill_create_ip: '127.0.0.1',
      time_start: formatChinaTime(row.created_at),
      time_expire: formatChinaTime(order.expire_at),
      notify_url: notifyUrl,
      trade_type: row.trade_type,
    };
    if (row.trade_type === 'NATIVE') request.product_id = order.prepay_id;
    if (row.profit_sharing) request.profit_sharing = 'Y';
    try {
      const answer = await callProtocol(endpoint, 'unifiedOrder', request, row.sign_type as SignType);
      if (!answer.ok) throw new KitError('channel_error', `the channel refused the order: ${answer.errCode ?? ''} ${answer.errMsg ?? ''}`.trim());
      const a = answer.fields;
      if (!a.prepay_id || (row.trade_type === 'NATIVE' && !a.code_url)) throw new KitError('channel_error', 'the channel answer lacks prepay_id or code_url');
      const args: NativePayArgs = {
        return_code: a.return_code,
        return_msg: a.return_msg ?? 'OK',
        appid: a.appid,
        mch_id: a.mch_id,
        nonce_str: a.nonce_str,
        sign: a.sign,
        result_code: a.result_code,
        prepay_id: a.prepay_id,
        trade_type: a.trade_type,
        code_url: a.code_url ?? '',
      };
      const patch = { channel_prepay_id: a.prepay_id, code_url: a.code_url ?? null, answer_json: JSON.stringify(args) };
      await this.store.moveChannelOrder(this.store.db, row.out_trade_no, ['creating'], 'open', patch);
      return { ...row, ...patch, state: 'open' };
    } catch (e) {
      await this.store.moveChannelOrder(this.store.db, row.out_trade_no, ['creating'], 'failed').catch(() => undefined);
      throw e;
    }
  }

  /**
   * Closes a channel order so it can no longer be paid. False when the channel says it was paid
   * (the payment is then recorded from the channel's order query).
   */
  private async closeAtChannel(co: PayChannelOrdersTable): Promise<boolean> {
    const adapter = this.adapter(co.channel as PaymentChannel);
    const endpoint = adapter.endpoint();
    const m = JSON.parse(co.merchant_json) as MerchantFields;
    const ids = definedOnly({ appid: m.appid, mch_id: m.mch_id, sub_appid: m.sub_appid, sub_mch_id: m.sub_mch_id });
    const answer = await callProtocol(endpoint, 'closeOrder', { ...ids, out_trade_no: co.out_trade_no }, co.sign_type as SignType);
    if (answer.ok || answer.errCode === 'ORDERCLOSED' || answer.errCode === 'ORDERNOTEXIST') {
      await this.store.moveChannelOrder(this.store.db, co.out_trade_no, ['open', 'creating', 'failed'], 'closed');
      return true;
    }
    if (answer.errCode === 'ORDERPAID') {
      const q = await callProtocol(endpoint, 'orderQuery', { ...ids, out_trade_no: co.out_trade_no }, co.sign_type as SignType);
      if (q.ok && q.fields.trade_state === 'SUCCESS') await this.recordPayment(co, q.fields);
      return false;
    }
    throw new KitError('channel_error', `the channel did not close the order: ${answer.errCode ?? ''} ${answer.errMsg ?? ''}`.trim());
  }

  /** On expiry: close whatever is still payable at the channel. */
  async closeForOrder(prepayId: string): Promise<void> {
    try {
      for (const co of await this.store.closableChannelOrders(prepayId)) await this.closeAtChannel(co);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, prepayId }, 'closing the channel order of an expired order failed');
    }
  }

  // ---- notifications -----------------------------------------------------------------------

  /** A payment notification (protocol XML) from the channel of `realm`. */
  async handlePayNotification(realm: Realm, raw: Buffer | string): Promise<NotificationResult> {
    const adapter = this.byRealm.get(realm);
    if (!adapter) return { ack: false, msg: 'unknown channel' };
    let n: Fields;
    try {
      n = parseXml(raw);
    } catch {
      return { ack: false, msg: 'unreadable XML' };
    }
    if (n.return_code !== 'SUCCESS') return { ack: false, msg: 'return_code is not SUCCESS' };
    const co = n.out_trade_no ? await this.store.channelOrder(n.out_trade_no) : undefined;
    if (!co || co.channel !== adapter.channel) return this.refused(realm, n, 'unknown out_trade_no');
    const problem = payNotificationProblem(n, { sign_type: co.sign_type, total_cents: co.total_cents, merchant: JSON.parse(co.merchant_json) }, adapter.endpoint().key);
    if (problem) return this.refused(realm, n, problem);
    if (n.result_code !== 'SUCCESS') return { ack: true, msg: 'OK' }; // a failed payment changes nothing
    await this.recordPayment(co, n);
    return { ack: true, msg: 'OK' };
  }

  private refused(realm: Realm, n: Fields, why: string): NotificationResult {
    this.log.warn({ realm, outTradeNo: n.out_trade_no, why }, 'payment notification refused');
    return { ack: false, msg: why };
  }

  /**
   * A verified payment: the channel order becomes `paid` and the prepay order `finish`, with the
   * callback row, in one transaction; held detail calls are woken after the commit. Repeats change
   * nothing. A payment that races the order's expiry still counts: the money was taken.
   */
  private async recordPayment(co: PayChannelOrdersTable, n: Fields): Promise<void> {
    const paidAt = parseChinaTime(n.time_end) ?? Date.now();
    const finished = await this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.moveChannelOrder(trx, co.out_trade_no, ['creating', 'open', 'closed', 'failed'], 'paid', {
        transaction_id: n.transaction_id,
        paid_at: paidAt,
      });
      if (!mine) return false;
      const moved =
        (await this.prepay.transition(trx, co.prepay_id, 'active', 'finish', { payment_time: paidAt })) ||
        (await this.prepay.transition(trx, co.prepay_id, 'cancel', 'finish', { payment_time: paidAt }));
      if (!moved) {
        // A second channel order of the same prepay order was paid: money to give back by hand.
        this.log.error({ prepayId: co.prepay_id, outTradeNo: co.out_trade_no }, 'a second payment arrived for an order that is no longer payable; refund it manually');
        return false;
      }
      await this.enqueueCallback(trx, co.prepay_id, 'finish', co.channel as PaymentChannel);
      return true;
    });
    if (finished) {
      this.prepay.announce(co.prepay_id, 'finish');
      this.callbacks.committed();
    }
  }

  /** A refund notification: its `req_info` only decrypts with our key, which proves its origin. */
  async handleRefundNotification(realm: Realm, raw: Buffer | string): Promise<NotificationResult> {
    const adapter = this.byRealm.get(realm);
    if (!adapter) return { ack: false, msg: 'unknown channel' };
    let info: Fields;
    try {
      const n = parseXml(raw);
      if (n.return_code !== 'SUCCESS' || !n.req_info) return { ack: false, msg: 'no req_info' };
      info = decryptReqInfo(n.req_info, adapter.endpoint().key);
    } catch {
      return this.refused(realm, {}, 'req_info does not decrypt with our key');
    }
    const refund = info.out_refund_no ? await this.store.refundByNumber(info.out_refund_no) : undefined;
    if (!refund || refund.channel !== adapter.channel) return this.refused(realm, info, 'unknown out_refund_no');
    const co = await this.store.channelOrder(refund.out_trade_no);
    const problem = refundNotificationProblem(info, refund, co?.total_cents ?? -1);
    if (problem) return this.refused(realm, info, problem);
    if (info.refund_status !== 'SUCCESS') {
      await this.store.moveRefund(this.store.db, refund.prepay_id, ['requesting', 'accepted'], 'failed', { last_error: `channel: ${info.refund_status}` });
      return { ack: true, msg: 'OK' };
    }
    const completedAt = Date.now();
    const refunded = await this.store.db.transaction().execute(async (trx) => {
      const mine = await this.store.moveRefund(trx, refund.prepay_id, ['requesting', 'accepted', 'failed'], 'success', {
        refund_id: info.refund_id ?? null,
        completed_at: completedAt,
        last_error: null,
      });
      if (!mine) return false;
      if (!(await this.prepay.transition(trx, refund.prepay_id, 'finish', 'refunded'))) return false;
      await this.enqueueCallback(trx, refund.prepay_id, 'refunded', refund.channel as PaymentChannel);
      return true;
    });
    if (refunded) {
      this.prepay.announce(refund.prepay_id, 'refunded');
      this.callbacks.committed();
    }
    return { ack: true, msg: 'OK' };
  }

  /** The section 6 callback of a state change, written in the same transaction as the change (outbox). */
  private async enqueueCallback(trx: Transaction<Database>, prepayId: string, status: 'finish' | 'refunded', channel: PaymentChannel): Promise<void> {
    const order = (await this.store.orderWithMerchants(prepayId, trx))!;
    await this.callbacks.enqueue(trx, {
      prepayId,
      status,
      subMerchantId: order.sub_merchant_id,
      merchantId: order.merchant_id,
      ownerAppId: order.sub_app_id,
      channel,
    });
  }

  // ---- 4.6 ---------------------------------------------------------------------------------

  /**
   * 4.6: full refund of a paid order, by the login of its sub-merchant or parent, signed by an app
   * that can see the order. Exactly one refund per order reaches the channel, however many
   * requests arrive at once; completion arrives later with the channel's refund notification.
   */
  async refund(signerAppId: string, loginToken: string, prepayId: string): Promise<RefundResponse> {
    const who = await this.merchants.identify(loginToken);
    const order = await this.store.orderWithMerchants(prepayId);
    if (!order || !visibleTo(order, signerAppId) || (who.merchantId !== order.sub_merchant_id && who.merchantId !== order.merchant_id)) {
      throw new KitError('not_found', `prepay order "${prepayId}" does not exist for this login`);
    }
    if (order.status === 'refunded') throw new KitError('order_already_refunded');
    if (order.status !== 'finish') throw new KitError('order_not_paid', `prepay order "${prepayId}" is ${order.status}; only a paid order can be refunded`);
    const co = await this.store.paidChannelOrder(prepayId);
    if (!co) throw new KitError('order_not_paid', `prepay order "${prepayId}" has no recorded payment`);
    const adapter = this.adapter(co.channel as PaymentChannel);
    const endpoint = adapter.endpoint();

    const outRefundNo = await this.claimRefund(co, who.merchantId, signerAppId);
    const m = JSON.parse(co.merchant_json) as MerchantFields;
    const request: Fields = {
      ...definedOnly({ appid: m.appid, mch_id: m.mch_id, sub_appid: m.sub_appid, sub_mch_id: m.sub_mch_id }),
      transaction_id: co.transaction_id ?? '',
      out_trade_no: co.out_trade_no,
      out_refund_no: outRefundNo,
      total_fee: String(co.total_cents),
      refund_fee: String(co.total_cents),
      refund_fee_type: 'CNY',
      notify_url: `${this.gateways.publicUrl()}/pay-notify/${adapter.realm}/refund`,
    };
    let answer;
    try {
      answer = await callProtocol(endpoint, 'refund', request, co.sign_type as SignType);
    } catch (e) {
      // Retrying later reuses the same refund number, which the channel de-duplicates.
      await this.store.moveRefund(this.store.db, prepayId, ['requesting'], 'failed', { last_error: (e as Error).message });
      throw e;
    }
    if (!answer.ok) {
      await this.store.moveRefund(this.store.db, prepayId, ['requesting'], 'failed', { last_error: `${answer.errCode}: ${answer.errMsg}` });
      throw new KitError('channel_error', `the channel refused the refund: ${answer.errCode ?? ''} ${answer.errMsg ?? ''}`.trim());
    }
    await this.store.moveRefund(this.store.db, prepayId, ['requesting'], 'accepted', { refund_id: answer.fields.refund_id ?? null });
    return { version: PAY_VERSION, status: 'success' };
  }

  /** The order's one refund: a new row, or a failed earlier attempt taken over. Otherwise refused. */
  private async claimRefund(co: PayChannelOrdersTable, merchantId: string, appId: string): Promise<string> {
    const now = Date.now();
    const outRefundNo = `R${randomAlnum(27)}`;
    try {
      await this.store.insertRefund({
        prepay_id: co.prepay_id,
        out_refund_no: outRefundNo,
        out_trade_no: co.out_trade_no,
        channel: co.channel,
        state: 'requesting',
        refund_cents: co.total_cents,
        refund_id: null,
        requested_by: merchantId,
        app_id: appId,
        last_error: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      });
      return outRefundNo;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    const existing = await this.store.refund(co.prepay_id);
    if (existing?.state === 'failed' && (await this.store.moveRefund(this.store.db, co.prepay_id, ['failed'], 'requesting', { requested_by: merchantId, app_id: appId }))) {
      return existing.out_refund_no;
    }
    if (existing?.state === 'success') throw new KitError('order_already_refunded');
    throw new KitError('refund_in_progress', 'a refund of this order was already requested; its completion arrives as a `refunded` callback');
  }

  /** What the service knows of an order's payment (operators and tests). */
  async paymentState(prepayId: string) {
    return {
      channelOrders: await this.store.db.selectFrom('pay_channel_orders').selectAll().where('prepay_id', '=', prepayId).orderBy('created_at').execute(),
      refund: (await this.store.refund(prepayId)) ?? null,
    };
  }
}

function visibleTo(order: { app_id: string; sub_app_id: string; parent_app_id: string | null }, appId: string): boolean {
  return order.app_id === appId || order.sub_app_id === appId || order.parent_app_id === appId;
}

function definedOnly(o: object): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') out[k] = String(v);
  return out;
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
