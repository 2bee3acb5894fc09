/**
 * The payment sandbox (DESIGN 2.4): the server side of protocol v2 (unified order, order query,
 * close, refund) for the social platform and for the card acquirer, checking request signatures
 * and signing its answers; a payer side (pay a code or a mini-program payment, the phone's login
 * and jscode2session); and notifications sent to the notify URL of each order, repeated while
 * unacknowledged and duplicated now and then, as the real platform does.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { randomAlnum } from '../security/ids';
import { isUniqueViolation } from '../db/errors';
import { signFields, verifyFields, isSignType, type SignType } from '../payments/protocol/sign';
import { parseXml, toXml, type Fields } from '../payments/protocol/xml';
import { formatChinaTime, parseChinaTime } from '../payments/protocol/time';
import { encryptReqInfo } from '../payments/protocol/refund-info';
import type { ProtocolOp } from '../payments/protocol/client';
import type { SandboxNotification, SandboxOrder, SandboxStore } from './sandbox-store';

export type SandboxRealm = 'social' | 'card';

export class SandboxError extends Error {
  constructor(readonly httpStatus: number, message: string) {
    super(message);
  }
}

interface RealmRules {
  key: string;
  tradeTypes: string[];
  /** Why the merchant fields are refused, or null. */
  merchantProblem(f: Fields): string | null;
}

const LOGIN_CODE_TTL_MS = 5 * 60_000;
const DUPLICATE_DELAY_MS = 200;
const NOTIFY_TIMEOUT_MS = 5_000;

export class SandboxService {
  private readonly realms: Record<SandboxRealm, RealmRules>;
  private wake: () => void = () => undefined;
  private readonly running = new Set<Promise<void>>();
  private readonly inflight = new AbortController();

  constructor(private readonly store: SandboxStore, private readonly config: Config, private readonly log: Logger) {
    this.realms = {
      social: {
        key: config.PAY_SP_KEY ?? '',
        tradeTypes: ['NATIVE', 'JSAPI', 'APP'],
        merchantProblem: (f) =>
          f.appid !== config.PAY_SP_APPID ? 'appid is not this service provider' : f.mch_id !== config.PAY_SP_MCH_ID ? 'mch_id is not this service provider' : !f.sub_mch_id ? 'sub_mch_id missing' : null,
      },
      card: {
        key: config.CARD_KEY ?? '',
        tradeTypes: ['JSAPI'],
        merchantProblem: (f) => (!f.mch_id ? 'mch_id missing' : !f.device_info ? 'device_info (terminal id) missing' : null),
      },
    };
  }

  setWake(wake: () => void): void {
    this.wake = wake;
  }

  // ---- protocol (the platform's server side) -----------------------------------------------

  /** Handles one protocol request and returns the answer XML (always HTTP 200, like the platform). */
  async protocol(realm: SandboxRealm, op: ProtocolOp, raw: Buffer): Promise<string> {
    const rules = this.realms[realm];
    let req: Fields;
    try {
      req = parseXml(raw);
    } catch {
      return toXml({ return_code: 'FAIL', return_msg: 'invalid XML' });
    }
    const signType = req.sign_type ?? 'MD5';
    if (!isSignType(signType)) return toXml({ return_code: 'FAIL', return_msg: 'sign_type must be MD5 or HMAC-SHA256' });
    if (!rules.key || !verifyFields(req, rules.key, signType)) return toXml({ return_code: 'FAIL', return_msg: 'signature error' });
    const problem = rules.merchantProblem(req);
    if (problem) return toXml({ return_code: 'FAIL', return_msg: problem });
    if (!req.nonce_str) return toXml({ return_code: 'FAIL', return_msg: 'nonce_str missing' });
    let result: Fields;
    try {
      result = await this.operation(realm, rules, op, req, signType);
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
    answer.sign = signFields(answer, rules.key, signType);
    return toXml(answer);
  }

  private operation(realm: SandboxRealm, rules: RealmRules, op: ProtocolOp, req: Fields, signType: SignType): Promise<Fields> {
    switch (op) {
      case 'unifiedOrder':
        return this.unifiedOrder(realm, rules, req, signType);
      case 'orderQuery':
        return this.orderQuery(realm, req);
      case 'closeOrder':
        return this.closeOrder(realm, req);
      case 'refund':
        return this.refund(realm, rules, req);
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
    const now = Date.now();
    const timeExpire = req.time_expire ? parseChinaTime(req.time_expire) : null;
    if (req.time_expire && timeExpire === null) throw new ProtocolFail('PARAM_ERROR', 'time_expire must be yyyyMMddHHmmss');

    const existing = await this.store.orderByTradeNo(realm, req.mch_id, req.out_trade_no);
    if (existing) return this.repeatedOrder(existing, req);
    const row: SandboxOrder = {
      prepay_id: `wx${formatChinaTime(now)}${randomBytes(10).toString('hex')}`,
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
      created_at: now,
      updated_at: now,
    };
    try {
      await this.store.insertOrder(row);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const raced = await this.store.orderByTradeNo(realm, req.mch_id, req.out_trade_no);
      if (raced) return this.repeatedOrder(raced, req);
      throw e;
    }
    return orderAnswer(row);
  }

  /** The platform answers a repeated unified order with the same prepay id when nothing changed. */
  private repeatedOrder(o: SandboxOrder, req: Fields): Fields {
    if (o.state === 'SUCCESS' || o.state === 'REFUND') throw new ProtocolFail('ORDERPAID', 'the order has been paid');
    if (o.state === 'CLOSED') throw new ProtocolFail('ORDERCLOSED', 'the order is closed');
    const same = String(o.total_fee) === req.total_fee && o.trade_type === req.trade_type && (o.sub_openid ?? o.openid ?? '') === (req.sub_openid || req.openid || '');
    if (!same) throw new ProtocolFail('INVALID_REQUEST', 'out_trade_no was used with different parameters');
    return orderAnswer(o);
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
    const o = await this.findOrder(realm, req);
    const state = o.state === 'NOTPAY' && o.time_expire !== null && o.time_expire < Date.now() ? 'CLOSED' : o.state;
    const out: Fields = { result_code: 'SUCCESS', trade_state: state, out_trade_no: o.out_trade_no, trade_type: o.trade_type, total_fee: String(o.total_fee), fee_type: 'CNY' };
    if (o.transaction_id) {
      out.transaction_id = o.transaction_id;
      out.time_end = formatChinaTime(o.paid_at!);
      out.cash_fee = String(o.total_fee);
      out.bank_type = 'OTHERS';
      if (o.sub_openid) out.sub_openid = o.sub_openid;
      out.openid = o.openid ?? sandboxOpenId(o.appid, 'sandbox-payer');
    }
    return out;
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
    const answer = (refundId: string): Fields => ({
      result_code: 'SUCCESS',
      transaction_id: o.transaction_id ?? '',
      out_trade_no: o.out_trade_no,
      out_refund_no: req.out_refund_no,
      refund_id: refundId,
      refund_fee: String(o.total_fee),
      total_fee: String(o.total_fee),
      cash_fee: String(o.total_fee),
    });
    const again = await this.store.refundByNumber(realm, req.mch_id, req.out_refund_no);
    if (again) {
      if (again.prepay_id !== o.prepay_id) throw new ProtocolFail('INVALID_REQUEST', 'out_refund_no was used for another order');
      return answer(again.refund_id);
    }
    if (o.state === 'REFUND') throw new ProtocolFail('ERROR', 'the order was already fully refunded');
    if (o.state !== 'SUCCESS') throw new ProtocolFail('TRADE_STATE_ERROR', 'the order has not been paid');
    if (req.total_fee !== String(o.total_fee)) throw new ProtocolFail('PARAM_ERROR', 'total_fee differs from the order');
    if (req.refund_fee !== String(o.total_fee)) throw new ProtocolFail('PARAM_ERROR', 'the sandbox refunds the whole amount only');
    const now = Date.now();
    const refundId = `50${formatChinaTime(now)}${randomDigits(14)}`;
    const successAt = now + this.config.SANDBOX_REFUND_DELAY;
    try {
      await this.store.insertRefund({ refund_id: refundId, realm, mch_id: req.mch_id, out_refund_no: req.out_refund_no, prepay_id: o.prepay_id, refund_fee: o.total_fee, notify_url: req.notify_url || null, state: 'SUCCESS', created_at: now, success_at: successAt });
    } catch (e) {
      if (isUniqueViolation(e)) return answer((await this.store.refundByNumber(realm, req.mch_id, req.out_refund_no))!.refund_id);
      throw e;
    }
    await this.store.moveOrder(o.prepay_id, 'SUCCESS', 'REFUND');
    if (req.notify_url) {
      const info = {
        transaction_id: o.transaction_id ?? '',
        out_trade_no: o.out_trade_no,
        refund_id: refundId,
        out_refund_no: req.out_refund_no,
        total_fee: o.total_fee,
        refund_fee: o.total_fee,
        settlement_refund_fee: o.total_fee,
        refund_status: 'SUCCESS',
        success_time: new Date(successAt + 8 * 3_600_000).toISOString().slice(0, 19).replace('T', ' '),
        refund_recv_accout: 'sandbox payer balance',
        refund_account: 'REFUND_SOURCE_RECHARGE_FUNDS',
        refund_request_source: 'API',
      };
      const body = toXml({
        return_code: 'SUCCESS',
        appid: o.appid,
        mch_id: o.mch_id,
        ...(o.sub_appid ? { sub_appid: o.sub_appid } : {}),
        ...(o.sub_mch_id ? { sub_mch_id: o.sub_mch_id } : {}),
        nonce_str: randomBytes(16).toString('hex'),
        req_info: encryptReqInfo(info, rules.key),
      });
      await this.enqueue('refund', refundId, req.notify_url, body, successAt);
    }
    return answer(refundId);
  }

  // ---- payer side ----------------------------------------------------------------------------

  /** `POST /sandbox/pay`: the payer pays a code (`codeUrl`) or a mini-program/app payment (`prepayId`). */
  async pay(input: { codeUrl?: unknown; prepayId?: unknown; openId?: unknown }): Promise<{ transactionId: string; order: SandboxOrder }> {
    let o: SandboxOrder | undefined;
    if (typeof input.codeUrl === 'string' && input.codeUrl) {
      const token = /[?&]pr=([0-9A-Za-z]+)/.exec(input.codeUrl)?.[1];
      o = token ? await this.store.orderByCodeToken(token) : undefined;
    } else if (typeof input.prepayId === 'string' && input.prepayId) {
      o = await this.store.orderByPrepayId(input.prepayId.replace(/^prepay_id=/, ''));
    } else {
      throw new SandboxError(400, 'give codeUrl or prepayId');
    }
    if (!o) throw new SandboxError(404, 'unknown order');
    if (input.openId !== undefined && input.openId !== null && input.openId !== '') {
      if (typeof input.openId !== 'string') throw new SandboxError(400, 'openId must be a string');
      const payer = o.sub_openid ?? o.openid;
      if (o.trade_type === 'JSAPI' && payer !== input.openId) throw new SandboxError(403, 'openId is not the payer of this order');
    }
    if (o.state === 'CLOSED') throw new SandboxError(409, 'the order is closed');
    if (o.state === 'SUCCESS' || o.state === 'REFUND') throw new SandboxError(409, 'the order is already paid');
    const now = Date.now();
    if (o.time_expire !== null && o.time_expire < now) throw new SandboxError(409, 'the order has expired');
    const transactionId = `4200${formatChinaTime(now).slice(0, 8)}${randomDigits(16)}`;
    if (!(await this.store.moveOrder(o.prepay_id, 'NOTPAY', 'SUCCESS', { transaction_id: transactionId, paid_at: now }))) {
      throw new SandboxError(409, 'the order is no longer payable');
    }
    const paid = { ...o, state: 'SUCCESS', transaction_id: transactionId, paid_at: now };
    await this.enqueue('pay', o.prepay_id, o.notify_url, this.payNotification(paid), now);
    return { transactionId, order: paid };
  }

  /** The payment notification, signed with the sign type the order was placed with (and not naming it). */
  private payNotification(o: SandboxOrder): string {
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
      time_end: formatChinaTime(o.paid_at!),
    };
    fields.sign = signFields(fields, this.realms[o.realm as SandboxRealm].key, o.sign_type as SignType);
    return toXml(fields);
  }

  /** Sends the payment notification of a paid order once more (tests of duplicate handling). */
  async renotify(prepayId: string): Promise<void> {
    const o = await this.store.orderByPrepayId(prepayId);
    if (!o || !o.transaction_id) throw new SandboxError(404, 'no paid order with this prepay id');
    await this.enqueue('pay', o.prepay_id, o.notify_url, this.payNotification(o), Date.now(), 0);
  }

  /** `POST /sandbox/login`: the phone side of the mini-program login. */
  async login(user?: unknown): Promise<{ code: string }> {
    if (user !== undefined && user !== null && (typeof user !== 'string' || user.length > 64)) throw new SandboxError(400, 'user must be a string of at most 64 characters');
    const name = typeof user === 'string' && user ? user : `user-${randomAlnum(10)}`;
    const code = randomBytes(16).toString('hex');
    const now = Date.now();
    await this.store.insertLoginCode(code, name, now + LOGIN_CODE_TTL_MS);
    if (Math.random() < 0.01) void this.store.purgeLoginCodes(now).catch(() => undefined);
    return { code };
  }

  /** `GET /sandbox/sns/jscode2session`: like the platform, errors come as `{errcode, errmsg}`. */
  async jscode2session(q: Record<string, unknown>): Promise<Record<string, string | number>> {
    if (q.appid !== this.config.MP_APPID) return { errcode: 40013, errmsg: 'invalid appid' };
    if (q.secret !== this.config.MP_SECRET) return { errcode: 40125, errmsg: 'invalid appsecret' };
    if (q.grant_type !== 'authorization_code') return { errcode: 40002, errmsg: 'invalid grant_type' };
    const user = typeof q.js_code === 'string' && q.js_code ? await this.store.takeLoginCode(q.js_code, Date.now()) : null;
    if (!user) return { errcode: 40029, errmsg: 'invalid code' };
    return { openid: sandboxOpenId(q.appid as string, user), session_key: randomBytes(16).toString('base64') };
  }

  /** What the cashier page shows for `package=prepay_id=…`. */
  async cashierOrder(pkg: string): Promise<SandboxOrder | undefined> {
    const id = pkg.replace(/^prepay_id=/, '');
    return id ? this.store.orderByPrepayId(id) : undefined;
  }

  notificationsFor(ref: string) {
    return this.store.notificationsFor(ref);
  }

  // ---- notifications -----------------------------------------------------------------------

  private async enqueue(kind: 'pay' | 'refund', ref: string, url: string, body: string, at: number, duplicates = this.config.SANDBOX_DUPLICATE_NOTIFY): Promise<void> {
    const now = Date.now();
    await this.store.insertNotification({ kind, ref, url, body, state: 'pending', attempts: 0, duplicates_left: duplicates, next_at: at, claim_token: null, created_at: now, acked_at: null });
    if (at <= now) this.wake();
  }

  /** Sends due notifications without waiting for them; true when more may be due at once. */
  async deliverDue(now = Date.now()): Promise<boolean> {
    const room = Math.min(32, 64 - this.running.size);
    if (room <= 0) return false;
    const token = randomBytes(8).toString('hex');
    const rows = await this.store.claimDue(now, room, now + NOTIFY_TIMEOUT_MS + 5_000, token);
    for (const row of rows) {
      const p: Promise<void> = this.send(row, token)
        .catch((err) => this.log.error({ err, notification: row.id }, 'sandbox notification failed to record'))
        .finally(() => {
          this.running.delete(p);
          this.wake();
        });
      this.running.add(p);
    }
    return rows.length === room;
  }

  private async send(row: SandboxNotification, token: string): Promise<void> {
    let acked = false;
    try {
      const res = await fetch(row.url, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8' },
        body: row.body,
        signal: AbortSignal.any([AbortSignal.timeout(NOTIFY_TIMEOUT_MS), this.inflight.signal]),
      });
      const text = await res.text();
      acked = res.ok && parseXml(text).return_code === 'SUCCESS';
    } catch {
      if (this.inflight.signal.aborted) return;
    }
    const now = Date.now();
    const attempts = row.attempts + 1;
    if (acked) {
      if (row.duplicates_left > 0) {
        await this.store.settleNotification(row.id, token, { attempts, duplicates_left: row.duplicates_left - 1, next_at: now + DUPLICATE_DELAY_MS, acked_at: now });
      } else {
        await this.store.settleNotification(row.id, token, { state: 'acked', attempts, acked_at: now });
      }
      return;
    }
    const wait = this.config.SANDBOX_NOTIFY_SCHEDULE[attempts - 1];
    if (wait === undefined) await this.store.settleNotification(row.id, token, { state: 'gave_up', attempts });
    else await this.store.settleNotification(row.id, token, { attempts, next_at: now + wait });
  }

  async stop(): Promise<void> {
    this.inflight.abort();
    await Promise.all([...this.running]);
  }
}

class ProtocolFail extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

function orderAnswer(o: SandboxOrder): Fields {
  const out: Fields = { result_code: 'SUCCESS', prepay_id: o.prepay_id, trade_type: o.trade_type };
  if (o.code_token) out.code_url = `weixin://wxpay/bizpayurl?pr=${o.code_token}`;
  return out;
}

/** The same user always gets the same open id within one app id, like the platform. */
export function sandboxOpenId(appId: string, user: string): string {
  return `o${createHash('sha256').update(`${appId}\n${user}`).digest('base64url').slice(0, 27)}`;
}

function randomDigits(n: number): string {
  let s = '';
  for (const b of randomBytes(n)) s += String(b % 10);
  return s;
}
