/**
 * The sandbox's platform side of protocol v2 (docs/sandbox.md), for the social platform and for the card
 * acquirer: unified order, order query, close, refund and refund query, and (where the realm takes
 * them) payment codes: `micropay` and `reverse` (`sandbox-codes.ts`). It checks request signatures
 * and merchant fields, signs its answers, keeps its own orders and refunds, and queues refund
 * notifications; the faults of `sandbox-faults.ts` make it lose calls and notifications.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '@kit/server/plugins/dev-plugin';
import { isUniqueViolation, randomAlnum } from '@kit/server/plugins/kit';
import { compactTime, parseCompactTime } from './protocol/china-time';
import { type Fields, isSignType, readFlatXml, sealRefundInfo, type SignType, v2Sign, v2Verifies, writeFlatXml, type V2Call } from './protocol/v2-rules';
import { sandboxPlatforms } from './stand-ins';
import { randomDigits } from './digits';
import type { SandboxFaults } from './sandbox-faults';
import type { SandboxProfitSharing } from './sandbox-profit-sharing';
import type { SandboxNotifier } from './sandbox-notifier';
import type { SandboxOrder, SandboxRefund, SandboxStore } from './sandbox-store';
import { ProtocolFail, V3_SIGN_TYPE, type SandboxRealm } from './sandbox-protocol';
import { CodeRefused, type SandboxCodes } from './sandbox-codes';

/** A notification's body and the protocol it is sent in. */
export interface SandboxNotice {
  body: string;
  protocol?: 'v3';
}

/** The v3 notification bodies (sandbox/v3/sandbox-v3-notices.ts), for orders placed over API v3. */
export interface V3Notices {
  pay(o: SandboxOrder): string;
  refund(o: SandboxOrder, r: SandboxRefund): string;
}

interface RealmRules {
  key: string;
  tradeTypes: string[];
  takesCodes: boolean;
  /** Why the merchant fields are refused, or null. */
  merchantProblem(f: Fields): string | null;
}

export class SandboxPlatform {
  private readonly realms: Record<SandboxRealm, RealmRules>;
  constructor(
    private readonly store: SandboxStore,
    private readonly notifier: SandboxNotifier,
    private readonly faults: SandboxFaults,
    private readonly config: Config,
    private readonly sharing: SandboxProfitSharing,
    /** The API v3 side's notification bodies (sandbox/v3/sandbox-v3-notices.ts), given at construction. */
    private readonly v3: V3Notices,
    /** The payers' payment codes, charged by `micropay` here and by API v3's `codepay`. */
    private readonly codes: SandboxCodes,
  ) {
    this.realms = Object.fromEntries(
      sandboxPlatforms(config).map((m) => [
        m.realm,
        { key: m.key, tradeTypes: m.tradeTypes, takesCodes: m.takesCodes, merchantProblem: (f: Fields) => m.merchantProblem(f) },
      ]),
    ) as Record<SandboxRealm, RealmRules>;
  }

  /**
   * One operation on fields already checked, for the API v3 side, which reads its JSON requests
   * into the fields of protocol v2 so that both protocols keep one set of rules and faults. Null:
   * the faults say the call is lost.
   */
  perform(realm: SandboxRealm, op: V2Call, req: Fields, signType: string): Promise<Fields | null> {
    // A call the faults say is lost: null, and it is never answered.
    if (op === 'refund' && this.faults.current.refunds === 'hold') return Promise.resolve(null);
    if ((op === 'psSplit' || op === 'psSplitAndFinish' || op === 'psFinish') && this.faults.current.splits === 'hold') return Promise.resolve(null);
    return this.operation(realm, this.realms[realm], op, req, signType as SignType);
  }

  keyOf(realm: SandboxRealm): string {
    return this.realms[realm].key;
  }

  /**
   * Handles one protocol request and returns the answer XML (always HTTP 200, like the platform),
   * or null when a fault says the call is lost: it must never be answered.
   */
  async protocol(realm: SandboxRealm, op: V2Call, raw: Buffer): Promise<string | null> {
    if (op === 'refund' && this.faults.current.refunds === 'hold') return null;
    if ((op === 'psSplit' || op === 'psSplitAndFinish' || op === 'psFinish') && this.faults.current.splits === 'hold') return null;
    const rules = this.realms[realm];
    let req: Fields;
    try {
      req = readFlatXml(raw);
    } catch {
      return writeFlatXml({ return_code: 'FAIL', return_msg: 'invalid XML' });
    }
    const signType = req.sign_type ?? 'MD5';
    if (!isSignType(signType)) return writeFlatXml({ return_code: 'FAIL', return_msg: 'sign_type must be MD5 or HMAC-SHA256' });
    if (!rules.key || !v2Verifies(req, rules.key, signType)) return writeFlatXml({ return_code: 'FAIL', return_msg: 'signature error' });
    const problem = rules.merchantProblem(req);
    if (problem) return writeFlatXml({ return_code: 'FAIL', return_msg: problem });
    if (!req.nonce_str) return writeFlatXml({ return_code: 'FAIL', return_msg: 'nonce_str missing' });
    let result: Fields;
    try {
      const done = await this.operation(realm, rules, op, req, signType);
      // A call the platform holds and never answers (a `silent` payment code).
      if (done === null) return null;
      result = done;
    } catch (e) {
      if (!(e instanceof ProtocolFail)) throw e;
      result = { result_code: 'FAIL', err_code: e.code, err_code_des: e.message };
    }
    const answer: Fields = {
      return_code: 'SUCCESS',
      return_msg: 'OK',
      appid: req.appid,
      mch_id: req.mch_id,
      ...(req.sub_appid ? { sub_appid: req.sub_appid } : {}),
      ...(req.sub_mch_id ? { sub_mch_id: req.sub_mch_id } : {}),
      ...(req.device_info ? { device_info: req.device_info } : {}),
      nonce_str: randomBytes(16).toString('hex'),
      ...result,
    };
    answer.sign = v2Sign(answer, rules.key, signType);
    return writeFlatXml(answer);
  }

  private operation(realm: SandboxRealm, rules: RealmRules, op: V2Call, req: Fields, signType: SignType): Promise<Fields | null> {
    switch (op) {
      case 'microPay':
        return this.microPay(realm, rules, req, signType);
      case 'reverse':
        return this.reverse(realm, rules, req);
      case 'unifiedOrder':
        return this.unifiedOrder(realm, rules, req, signType);
      case 'orderQuery':
        return this.orderQuery(realm, req);
      case 'closeOrder':
        return this.closeOrder(realm, req);
      case 'refund':
        return this.refund(realm, rules, req);
      case 'refundQuery':
        return this.refundQuery(realm, req);
      default:
        return this.sharing.handle(realm, op, req, signType);
    }
  }

  private async unifiedOrder(realm: SandboxRealm, rules: RealmRules, req: Fields, signType: SignType): Promise<Fields> {
    for (const f of ['body', 'out_trade_no', 'total_fee', 'spbill_create_ip', 'notify_url', 'trade_type']) {
      if (!req[f]) throw new ProtocolFail('PARAM_ERROR', `${f} missing`);
    }
    if (!/^[1-9][0-9]{0,11}$/.test(req.total_fee)) throw new ProtocolFail('PARAM_ERROR', 'total_fee must be a positive integer of cents');
    if (!/^[0-9A-Za-z_\-|*@]{1,32}$/.test(req.out_trade_no)) throw new ProtocolFail('PARAM_ERROR', 'out_trade_no is malformed');
    if (!/^https?:\/\/[^\s]+$/.test(req.notify_url)) throw new ProtocolFail('PARAM_ERROR', 'notify_url must be an http(s) URL');
    if (!rules.tradeTypes.includes(req.trade_type)) throw new ProtocolFail('PARAM_ERROR', `trade_type ${req.trade_type} is not supported here`);
    const payer = req.sub_openid || req.openid;
    if (req.trade_type === 'JSAPI' && !payer) throw new ProtocolFail('PARAM_ERROR', 'JSAPI needs openid or sub_openid');
    const now = this.store.clock.now();
    const timeExpire = req.time_expire ? parseCompactTime(req.time_expire) : null;
    if (req.time_expire && timeExpire === null) throw new ProtocolFail('PARAM_ERROR', 'time_expire must be yyyyMMddHHmmss');

    const existing = await this.store.orderByTradeNo(realm, req.mch_id, req.out_trade_no);
    if (existing) return repeatedOrder(existing, req);
    const row: SandboxOrder = {
      prepay_id: `wx${compactTime(now)}${randomBytes(10).toString('hex')}`,
      realm,
      code_token: req.trade_type === 'NATIVE' ? randomAlnum(16) : null,
      appid: req.appid,
      mch_id: req.mch_id,
      sub_appid: req.sub_appid || null,
      sub_mch_id: req.sub_mch_id || null,
      device_info: req.device_info || null,
      out_trade_no: req.out_trade_no,
      body: req.body,
      total_fee: Number(req.total_fee),
      trade_type: req.trade_type,
      openid: req.openid || null,
      sub_openid: req.sub_openid || null,
      notify_url: req.notify_url,
      sign_type: signType,
      profit_sharing: req.profit_sharing === 'Y' ? 1 : 0,
      time_expire: timeExpire,
      state: 'NOTPAY',
      transaction_id: null,
      paid_at: null,
      unfrozen_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.store.insertOrder(row);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const raced = await this.store.orderByTradeNo(realm, req.mch_id, req.out_trade_no);
      if (raced) return repeatedOrder(raced, req);
      throw e;
    }
    return orderAnswer(row);
  }

  private async findOrder(realm: SandboxRealm, req: Fields): Promise<SandboxOrder> {
    const o = req.transaction_id
      ? await this.store.orderByTransaction(realm, req.mch_id, req.transaction_id)
      : req.out_trade_no
        ? await this.store.orderByTradeNo(realm, req.mch_id, req.out_trade_no)
        : undefined;
    if (!o) throw new ProtocolFail('ORDERNOTEXIST', 'no such order');
    return o;
  }

  private async orderQuery(realm: SandboxRealm, req: Fields): Promise<Fields> {
    // A payment code's payer may have confirmed by now.
    const o = await this.codes.ripen(await this.findOrder(realm, req));
    const state = o.state === 'NOTPAY' && o.time_expire !== null && o.time_expire < this.store.clock.now() ? 'CLOSED' : o.state;
    const out: Fields = {
      result_code: 'SUCCESS',
      trade_state: state,
      out_trade_no: o.out_trade_no,
      trade_type: o.trade_type,
      total_fee: String(o.total_fee),
      fee_type: 'CNY',
    };
    if (o.transaction_id) {
      out.transaction_id = o.transaction_id;
      out.time_end = compactTime(o.paid_at!);
      out.cash_fee = String(o.total_fee);
      out.bank_type = 'OTHERS';
      if (o.sub_openid) out.sub_openid = o.sub_openid;
      out.openid = o.openid ?? sandboxOpenId(o.appid, 'sandbox-payer');
    }
    return out;
  }

  /**
   * The payer's payment code (`micropay`, 7.4): `result_code` SUCCESS with the trade when paid,
   * `USERPAYING` while the payer confirms, a refusal naming the platform's code (a used or invalid
   * code, a short balance); a `silent` code is never answered (null). The same `out_trade_no` again
   * answers the trade as it is.
   */
  private async microPay(realm: SandboxRealm, rules: RealmRules, req: Fields, signType: SignType): Promise<Fields | null> {
    if (!rules.takesCodes) throw new ProtocolFail('NOAUTH', 'this merchant takes no payment codes here');
    for (const f of ['body', 'out_trade_no', 'total_fee', 'spbill_create_ip', 'auth_code']) {
      if (!req[f]) throw new ProtocolFail('PARAM_ERROR', `${f} missing`);
    }
    if (!/^[1-9][0-9]{0,11}$/.test(req.total_fee)) throw new ProtocolFail('PARAM_ERROR', 'total_fee must be a positive integer of cents');
    if (!/^[0-9A-Za-z_\-|*@]{1,32}$/.test(req.out_trade_no)) throw new ProtocolFail('PARAM_ERROR', 'out_trade_no is malformed');
    let charged;
    try {
      charged = await this.codes.charge(
        realm,
        {
          appid: req.appid,
          mch_id: req.mch_id,
          ...(req.sub_appid ? { sub_appid: req.sub_appid } : {}),
          sub_mch_id: req.sub_mch_id,
          out_trade_no: req.out_trade_no,
          body: req.body,
          total_fee: Number(req.total_fee),
          ...(req.device_info ? { device_info: req.device_info } : {}),
        },
        req.auth_code,
        signType,
      );
    } catch (e) {
      if (e instanceof CodeRefused) throw new ProtocolFail(e.code, e.message);
      throw e;
    }
    if (!charged.answered) return null;
    const o = charged.order;
    if (o.state === 'USERPAYING') throw new ProtocolFail('USERPAYING', '需要用户输入支付密码');
    if (o.state === 'REVOKED') throw new ProtocolFail('ORDERREVERSED', '订单已撤销');
    if (o.state !== 'SUCCESS') throw new ProtocolFail('TRADE_ERROR', `the order is ${o.state}`);
    return {
      result_code: 'SUCCESS',
      openid: sandboxOpenId(o.appid, 'sandbox-payer'),
      is_subscribe: 'N',
      trade_type: 'MICROPAY',
      bank_type: 'OTHERS',
      fee_type: 'CNY',
      total_fee: String(o.total_fee),
      cash_fee: String(o.total_fee),
      transaction_id: o.transaction_id!,
      out_trade_no: o.out_trade_no,
      ...(req.attach ? { attach: req.attach } : {}),
      time_end: compactTime(o.paid_at!),
    };
  }

  /**
   * Undoes a payment code's trade whatever its state (`secapi/pay/reverse`): a paid one's money goes
   * back. `recall: Y` asks for the call again (the fault `reverseRecalls`, answered as a `SYSTEMERROR`).
   */
  private async reverse(realm: SandboxRealm, rules: RealmRules, req: Fields): Promise<Fields> {
    if (!rules.takesCodes) throw new ProtocolFail('NOAUTH', 'this merchant takes no payment codes here');
    const o = await this.findOrder(realm, req);
    if (o.sub_mch_id !== (req.sub_mch_id || null)) throw new ProtocolFail('ORDERNOTEXIST', 'no such order');
    if (o.trade_type !== 'MICROPAY') throw new ProtocolFail('INVALID_REQUEST', 'only a payment code order can be reversed; close the others');
    const { recall } = await this.codes.reverse(await this.codes.ripen(o));
    if (recall) return { result_code: 'FAIL', err_code: 'SYSTEMERROR', err_code_des: '系统超时，请重新调用撤销', recall: 'Y' };
    return { result_code: 'SUCCESS', recall: 'N' };
  }

  private async closeOrder(realm: SandboxRealm, req: Fields): Promise<Fields> {
    const o = await this.findOrder(realm, req);
    if (o.state === 'SUCCESS' || o.state === 'REFUND') throw new ProtocolFail('ORDERPAID', 'the order has been paid');
    if (o.state === 'CLOSED') throw new ProtocolFail('ORDERCLOSED', 'the order is already closed');
    if (!(await this.store.moveOrder(o.prepay_id, 'NOTPAY', 'CLOSED'))) throw new ProtocolFail('ORDERPAID', 'the order has been paid');
    return { result_code: 'SUCCESS' };
  }

  private async refund(realm: SandboxRealm, rules: RealmRules, req: Fields): Promise<Fields> {
    for (const f of ['out_refund_no', 'total_fee', 'refund_fee']) if (!req[f]) throw new ProtocolFail('PARAM_ERROR', `${f} missing`);
    const o = await this.findOrder(realm, req);
    const again = await this.store.refundByNumber(realm, req.mch_id, req.out_refund_no);
    if (again) {
      // The same refund number is the same refund: answered again, nothing more happens.
      if (again.prepay_id !== o.prepay_id) throw new ProtocolFail('INVALID_REQUEST', 'out_refund_no was used for another order');
      return refundAnswer(o, req.out_refund_no, again.refund_id);
    }
    if (o.state === 'REFUND') throw new ProtocolFail('ERROR', 'the order was already fully refunded');
    if (o.state !== 'SUCCESS') throw new ProtocolFail('TRADE_STATE_ERROR', 'the order has not been paid');
    if (req.total_fee !== String(o.total_fee)) throw new ProtocolFail('PARAM_ERROR', 'total_fee differs from the order');
    if (req.refund_fee !== String(o.total_fee)) throw new ProtocolFail('PARAM_ERROR', 'the sandbox refunds the whole amount only');
    const now = this.store.clock.now();
    const refundId = `50${compactTime(now)}${randomDigits(14)}`;
    const successAt = now + this.config.SANDBOX_REFUND_DELAY;
    const row: SandboxRefund = {
      refund_id: refundId,
      realm,
      mch_id: req.mch_id,
      out_refund_no: req.out_refund_no,
      prepay_id: o.prepay_id,
      refund_fee: o.total_fee,
      notify_url: req.notify_url || null,
      state: 'SUCCESS',
      created_at: now,
      success_at: successAt,
    };
    try {
      await this.store.db.transaction().execute(async (trx) => {
        await this.store.insertRefund(trx, row);
        await this.store.moveOrder(o.prepay_id, 'SUCCESS', 'REFUND', {}, trx);
        if (req.notify_url && this.faults.current.refundNotifications === 'deliver') {
          const notice: SandboxNotice =
            o.sign_type === V3_SIGN_TYPE ? { body: this.v3.refund(o, row), protocol: 'v3' } : { body: this.refundNotification(o, row, rules.key) };
          await this.notifier.enqueue(trx, refundId, { kind: 'refund', url: req.notify_url, ...notice }, successAt);
        }
      });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      return refundAnswer(o, req.out_refund_no, (await this.store.refundByNumber(realm, req.mch_id, req.out_refund_no))!.refund_id);
    }
    return refundAnswer(o, req.out_refund_no, refundId);
  }

  /** Looked up by refund number (or all refunds of an order); PROCESSING until the refund's completion time. */
  private async refundQuery(realm: SandboxRealm, req: Fields): Promise<Fields> {
    let refunds: SandboxRefund[];
    let o: SandboxOrder | undefined;
    if (req.out_refund_no) {
      const r = await this.store.refundByNumber(realm, req.mch_id, req.out_refund_no);
      refunds = r ? [r] : [];
      o = r ? await this.store.orderByPrepayId(r.prepay_id) : undefined;
    } else {
      o = await this.findOrder(realm, req);
      refunds = await this.store.refundsOf(o.prepay_id);
    }
    if (!o || refunds.length === 0) throw new ProtocolFail('REFUNDNOTEXIST', 'no such refund');
    const now = this.store.clock.now();
    const out: Fields = {
      result_code: 'SUCCESS',
      transaction_id: o.transaction_id ?? '',
      out_trade_no: o.out_trade_no,
      total_fee: String(o.total_fee),
      cash_fee: String(o.total_fee),
      refund_count: String(refunds.length),
    };
    refunds.forEach((r, i) => {
      const done = r.success_at === null || r.success_at <= now;
      out[`out_refund_no_${i}`] = r.out_refund_no;
      out[`refund_id_${i}`] = r.refund_id;
      out[`refund_fee_${i}`] = String(r.refund_fee);
      out[`refund_status_${i}`] = done ? r.state : 'PROCESSING';
      if (done && r.state === 'SUCCESS' && r.success_at !== null) out[`refund_success_time_${i}`] = chinaDateTime(r.success_at);
    });
    return out;
  }

  private refundNotification(o: SandboxOrder, r: SandboxRefund, key: string): string {
    const info = {
      transaction_id: o.transaction_id ?? '',
      out_trade_no: o.out_trade_no,
      refund_id: r.refund_id,
      out_refund_no: r.out_refund_no,
      total_fee: o.total_fee,
      refund_fee: r.refund_fee,
      settlement_refund_fee: r.refund_fee,
      refund_status: 'SUCCESS',
      success_time: chinaDateTime(r.success_at ?? r.created_at),
      refund_recv_accout: 'sandbox payer balance',
      refund_account: 'REFUND_SOURCE_RECHARGE_FUNDS',
      refund_request_source: 'API',
    };
    return writeFlatXml({
      return_code: 'SUCCESS',
      appid: o.appid,
      mch_id: o.mch_id,
      ...(o.sub_appid ? { sub_appid: o.sub_appid } : {}),
      ...(o.sub_mch_id ? { sub_mch_id: o.sub_mch_id } : {}),
      nonce_str: randomBytes(16).toString('hex'),
      req_info: sealRefundInfo(info, key),
    });
  }

  /** The payment notification in the protocol the order was placed with. */
  payNotice(o: SandboxOrder): SandboxNotice {
    return o.sign_type === V3_SIGN_TYPE ? { body: this.v3.pay(o), protocol: 'v3' } : { body: this.payNotification(o) };
  }

  /** The payment notification, signed with the sign type the order was placed with (and not naming it). */
  payNotification(o: SandboxOrder): string {
    const fields: Fields = {
      return_code: 'SUCCESS',
      appid: o.appid,
      mch_id: o.mch_id,
      ...(o.sub_appid ? { sub_appid: o.sub_appid } : {}),
      ...(o.sub_mch_id ? { sub_mch_id: o.sub_mch_id } : {}),
      ...(o.device_info ? { device_info: o.device_info } : {}),
      nonce_str: randomBytes(16).toString('hex'),
      result_code: 'SUCCESS',
      openid: o.openid ?? sandboxOpenId(o.appid, 'sandbox-payer'),
      ...(o.sub_openid ? { sub_openid: o.sub_openid } : {}),
      is_subscribe: 'N',
      trade_type: o.trade_type,
      bank_type: 'OTHERS',
      total_fee: String(o.total_fee),
      fee_type: 'CNY',
      cash_fee: String(o.total_fee),
      transaction_id: o.transaction_id!,
      out_trade_no: o.out_trade_no,
      time_end: compactTime(o.paid_at!),
    };
    fields.sign = v2Sign(fields, this.realms[o.realm as SandboxRealm].key, o.sign_type as SignType);
    return writeFlatXml(fields);
  }
}

/** The platform answers a repeated unified order with the same prepay id when nothing changed. */
function repeatedOrder(o: SandboxOrder, req: Fields): Fields {
  if (o.state === 'SUCCESS' || o.state === 'REFUND') throw new ProtocolFail('ORDERPAID', 'the order has been paid');
  if (o.state === 'CLOSED') throw new ProtocolFail('ORDERCLOSED', 'the order is closed');
  const same =
    String(o.total_fee) === req.total_fee && o.trade_type === req.trade_type && (o.sub_openid ?? o.openid ?? '') === (req.sub_openid || req.openid || '');
  if (!same) throw new ProtocolFail('INVALID_REQUEST', 'out_trade_no was used with different parameters');
  return orderAnswer(o);
}

function orderAnswer(o: SandboxOrder): Fields {
  const out: Fields = { result_code: 'SUCCESS', prepay_id: o.prepay_id, trade_type: o.trade_type };
  if (o.code_token) out.code_url = `weixin://wxpay/bizpayurl?pr=${o.code_token}`;
  return out;
}

function refundAnswer(o: SandboxOrder, outRefundNo: string, refundId: string): Fields {
  return {
    result_code: 'SUCCESS',
    transaction_id: o.transaction_id ?? '',
    out_trade_no: o.out_trade_no,
    out_refund_no: outRefundNo,
    refund_id: refundId,
    refund_fee: String(o.total_fee),
    total_fee: String(o.total_fee),
    cash_fee: String(o.total_fee),
  };
}

/** `yyyy-MM-dd HH:mm:ss` in China Standard Time, as refund results carry it. */
function chinaDateTime(ms: number): string {
  return new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The same user always gets the same open id within one app id, like the platform. */
export function sandboxOpenId(appId: string, user: string): string {
  return `o${createHash('sha256').update(`${appId}\n${user}`).digest('base64url').slice(0, 27)}`;
}

export { randomDigits } from './digits';
