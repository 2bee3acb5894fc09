/**
 * The sandbox's stand-in for Alipay's open platform gateway (`gateway.do`), in Alipay's wire shape:
 * requests are form parameters signed RSA2 by the application (checked with its public key, the app
 * id, the China-time `timestamp`, the merchant's `app_auth_token`); answers are
 * `{"<method>_response":{…},"sign":"…"}` signed over the node's text with the stand-in's own key
 * pair (generated unless given), slashes escaped as Alipay writes them; payments and refunds are
 * followed by form notifications signed as Alipay signs them. Trades live in memory.
 *
 * A precreated code is no trade until a payer scans it: query and close answer
 * `ACQ.TRADE_NOT_EXIST` until then, as Alipay does; so is an app order string or a WAP payment URL
 * until the payer opens it. `alipay.trade.create` makes a trade at once (WAIT_BUYER_PAY) for the
 * mini-program's `my.tradePay`. `alipay.system.oauth.token` takes the login codes the stand-in
 * issued (`issueAuthCode`, the sandbox's stand-in for `my.getAuthCode`), once each, for the
 * development mini-program (`miniAppId`). Daily bills:
 * `sandbox-alipay-bills.ts`.
 */
import { systemClock, type Clock } from '@kit/shared/clock';
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { formatCents, parseCents } from '@kit/shared';
import { dashedTime, parseDashedTime } from '../protocol/china-time';
import { type Params, requestVerifies, rsa2, signedNotification, signingText } from './alipay-rules';
import { SandboxAlipayBills, type AlipayBillFaults } from './sandbox-alipay-bills';
import { behaviourOf, CONFIRM_AFTER_MS } from '../sandbox-codes';

export interface SandboxAlipayOptions {
  /** The service provider's application, and its public key (requests are checked with it). */
  appId: string;
  appPublicKey: KeyObject;
  /** The mini-program the login codes are for (`alipay.system.oauth.token` is its call); none: codes are refused. */
  miniAppId?: string;
  /** The stand-in's key pair; generated when not given. */
  keys?: { privateKey: KeyObject; publicKey: KeyObject };
  /** The service's clock (the system clock by default): the gateway's times and its repeats' waits. */
  clock?: Clock;
  /** Posts a notification (form body) and gives back the answer; `fetch` by default. */
  post?: (url: string, body: string) => Promise<{ status: number; text: string }>;
  /** The sandbox's bill faults of now (none by default). */
  billFaults?: () => AlipayBillFaults;
  /** The sandbox's other faults of now (docs/sandbox.md), those with an Alipay meaning; none by default. */
  faults?: () => AlipayFaults;
  /** Extra copies of each acknowledged notification (`SANDBOX_DUPLICATE_NOTIFY`); none by default. */
  duplicates?: number;
  /** Waits (ms) between repeats of a notification not answered `success` (`SANDBOX_NOTIFY_SCHEDULE`); none by default. */
  retrySchedule?: readonly number[];
}

/** The faults of `POST /sandbox/faults` the Alipay stand-in obeys besides the bill faults. */
export interface AlipayFaults {
  /** `drop`: a payment's notification is never sent. */
  payNotifications: 'deliver' | 'drop';
  /** `drop`: a refund's notification is never sent. */
  refundNotifications: 'deliver' | 'drop';
  /** `hold`: `alipay.trade.refund` is never answered and not recorded (lost before Alipay). */
  refunds: 'answer' | 'hold';
  /** How many `alipay.trade.cancel` calls of a trade are answered `retry_flag: "Y"` (call again) without cancelling; none by default. */
  alipayCancelRetries?: number;
  /**
   * Methods refused with the `sub_code` each names (`40004`; `ACQ.SYSTEM_ERROR`: call again with the
   * same parameters) without doing anything; a refund so refused is received but not taken: its
   * query names the `out_request_no` without a `refund_status`. None by default.
   */
  alipayRefusals?: Readonly<Partial<Record<string, string>>>;
  /**
   * How refusals are answered: in the method's node and signed (`signed`, the default, as Alipay
   * answers business errors), in the method's node without `sign` (`unsigned`), or as the gateway's
   * own unsigned `error_response`.
   */
  alipayErrors?: 'signed' | 'unsigned' | 'error_response';
}
const NO_FAULTS: AlipayFaults = { payNotifications: 'deliver', refundNotifications: 'deliver', refunds: 'answer' };

type TradeStatus = 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED';

interface Trade {
  appAuthToken: string;
  outTradeNo: string;
  tradeNo: string;
  totalCents: number;
  subject: string;
  notifyUrl?: string;
  expireAt: number;
  status: TradeStatus;
  createdAt: number;
  paidAt?: number;
  buyerOpenId?: string;
  refunds: Map<string, { cents: number; at: number }>;
  /** Refund request numbers received but not taken (refused by the fault `alipayRefusals`). */
  untaken: Set<string>;
  /** A payment code's trade (7.4): the code, and when its payer confirms on the phone (`confirm` codes). */
  paymentCode?: { code: string; confirmAt?: number };
  /** How many times a cancel was asked for (the fault `alipayCancelRetries` answers the first ones `retry_flag: "Y"`). */
  cancelsAsked?: number;
}

/** A precreated code: no trade until it is scanned. */
interface Code {
  appAuthToken: string;
  biz: Record<string, string>;
  notifyUrl?: string;
  expireAt: number;
}

export interface SandboxAlipayNotice {
  url: string;
  form: Params;
  /** Whether the receiver answered `success`. */
  acknowledged: boolean;
  /** Which sending of the notification this was: 1 the first, more for a repeat or a duplicate. */
  attempt: number;
}

class Fail extends Error {
  constructor(
    readonly code: string,
    readonly msg: string,
    readonly subCode: string,
    message: string,
  ) {
    super(message);
  }
}
const business = (subCode: string, message: string) => new Fail('40004', 'Business Failed', subCode, message);
const invalid = (subCode: string, message: string) => new Fail('40002', 'Invalid Arguments', subCode, message);
/** A refusal the sandbox's fault `alipayRefusals` asks for. */
const refusedByFault = (subCode: string) => business(subCode, subCode === 'ACQ.SYSTEM_ERROR' ? '系统错误' : `refused by the sandbox's fault alipayRefusals`);

/** The gateway methods the stand-in answers (`alipayRefusals` names some of them). */
export const ALIPAY_METHODS = [
  'alipay.trade.pay',
  'alipay.trade.cancel',
  'alipay.trade.precreate',
  'alipay.trade.create',
  'alipay.trade.query',
  'alipay.trade.close',
  'alipay.trade.refund',
  'alipay.trade.fastpay.refund.query',
  'alipay.system.oauth.token',
  'alipay.data.dataservice.bill.downloadurl.query',
] as const;
type Method = (typeof ALIPAY_METHODS)[number];

/** How far the request's `timestamp` may be from the stand-in's clock. */
const TIMESTAMP_SLACK_MS = 15 * 60_000;
const OUT_NO = /^[A-Za-z0-9_]{1,64}$/;
/** Alipay's payment codes: 16 to 24 digits starting 25–30. */
const ALIPAY_CODE = /^(2[5-9]|30)\d{14,22}$/;
/** A login code is good this long, once (Alipay's `auth_code` lives a few minutes). */
const AUTH_CODE_TTL_MS = 5 * 60_000;

/** What the stand-in's cashier shows of a signed `alipay.trade.wap.pay` URL. */
export interface WapOrder {
  outTradeNo: string;
  /** The merchant's own order number (`merchant_order_no`), which Alipay's page shows the payer; null when not sent. */
  merchantOrderNo: string | null;
  subject: string;
  totalCents: number;
  /** The trade's status, `WAIT_BUYER_PAY` for one not opened yet; `EXPIRED` past its `time_expire`. */
  status: TradeStatus | 'EXPIRED';
  returnUrl: string | null;
  quitUrl: string | null;
}

/** A request the stand-in refuses, in Alipay's words (`sub_code`, `sub_msg`). */
export class SandboxAlipayRefusal extends Error {
  constructor(
    readonly subCode: string,
    message: string,
  ) {
    super(message);
  }
}

export class SandboxAlipay {
  readonly publicKey: KeyObject;
  private readonly privateKey: KeyObject;
  private readonly clock: Clock;
  private readonly now: () => number;
  private readonly faults: () => AlipayFaults;
  private readonly post: (url: string, body: string) => Promise<{ status: number; text: string }>;
  private readonly trades = new Map<string, Trade>();
  private readonly codes = new Map<string, Code>();
  /** Every notification sent, oldest first. */
  readonly notices: SandboxAlipayNotice[] = [];
  private seq = 0;
  private readonly pending = new Set<Promise<void>>();
  /** Authorizations merchants withdrew (`revoke`): calls with them are refused as Alipay refuses them. */
  private readonly revoked = new Set<string>();
  /** Login codes issued and not used yet. */
  private readonly authCodes = new Map<string, { openId: string; expiresAt: number }>();
  /** The daily bills and the links to them (`sandbox-alipay-bills.ts`). */
  readonly bills: SandboxAlipayBills;

  constructor(private readonly opts: SandboxAlipayOptions) {
    const keys = opts.keys ?? generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = keys.privateKey;
    this.publicKey = keys.publicKey;
    this.clock = opts.clock ?? systemClock;
    this.now = () => this.clock.now();
    this.faults = opts.faults ?? (() => NO_FAULTS);
    this.bills = new SandboxAlipayBills(() => this.now(), opts.billFaults);
    this.post =
      opts.post ??
      (async (url, body) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
          body,
          signal: this.clock.timeout(10_000),
        });
        return { status: res.status, text: await res.text() };
      });
  }

  /** Alipay's public key, for the kit's `ALIPAY_PUBLIC_KEY`. */
  get publicKeyPem(): string {
    return this.publicKey.export({ format: 'pem', type: 'spki' }) as string;
  }

  /**
   * One `POST gateway.do`: the URL's query and the form body, as Alipay reads them; answers the JSON
   * text (HTTP 200). `base`: the stand-in's own URL (`…/sandbox/alipay`), where bill links point.
   * Null: the faults say the call is lost (`refunds: "hold"`); it must never be answered.
   */
  gatewayRequest(query: string, body: string, base = ''): string | null {
    const params: Params = {};
    for (const source of [query, body]) for (const [k, v] of new URLSearchParams(source)) params[k] = v;
    return this.handle(params, base);
  }

  handle(params: Params, base = ''): string | null {
    const method = params.method ?? '';
    const faults = this.faults();
    // Lost before reaching Alipay: not recorded, never answered; the kit's time limit ends the call.
    if (method === 'alipay.trade.refund' && faults.refunds === 'hold') return null;
    if (!(ALIPAY_METHODS as readonly string[]).includes(method)) {
      return this.refusal('error_response', invalid('isv.invalid-method', `不存在的方法名: ${method}`));
    }
    const nodeName = `${method.replace(/\./g, '_')}_response`;
    if (method === 'alipay.system.oauth.token') {
      // The mini-program's own call: its app id, no merchant's token, no biz_content; refused in `error_response`, taken without a `code`.
      try {
        this.checkRequest(params, { appId: this.opts.miniAppId ?? '', merchant: false });
        const refused = faults.alipayRefusals?.[method];
        if (refused) throw refusedByFault(refused);
        return this.answer(nodeName, this.oauthToken(params));
      } catch (e) {
        if (!(e instanceof Fail)) throw e;
        return this.refusal('error_response', e);
      }
    }
    try {
      this.checkRequest(params);
      const biz = this.bizContent(params);
      const refused = faults.alipayRefusals?.[method];
      if (refused) throw this.refusedByFault(method, params, biz, refused);
      if (method === 'alipay.trade.pay') return this.codePay(nodeName, params, biz);
      return this.answer(nodeName, {
        code: '10000',
        msg: 'Success',
        ...this.perform(method as Exclude<Method, 'alipay.system.oauth.token' | 'alipay.trade.pay'>, params, biz, base),
      });
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      return this.refusal(nodeName, e);
    }
  }

  /** The refusal the fault `alipayRefusals` names, for a call that does nothing; a refund so refused is received, not taken. */
  private refusedByFault(method: string, p: Params, biz: Record<string, string>, subCode: string): Fail {
    if (method === 'alipay.trade.refund') {
      const t = this.trades.get(tradeKey(p.app_auth_token, biz.out_trade_no ?? ''));
      if (t && OUT_NO.test(biz.out_request_no ?? '')) t.untaken.add(biz.out_request_no);
    }
    return refusedByFault(subCode);
  }

  /** A refusal, in the node the fault `alipayErrors` says (`nodeName`, or `error_response`), signed or not. */
  private refusal(nodeName: string, e: Fail): string {
    const how = this.faults().alipayErrors ?? 'signed';
    const node = { code: e.code, msg: e.msg, sub_code: e.subCode, sub_msg: e.message };
    return this.answer(how === 'error_response' ? 'error_response' : nodeName, node, how === 'signed');
  }

  /** A login code for a payer of the mini-program, as `my.getAuthCode` gives one: good once, for a few minutes. */
  issueAuthCode(buyerOpenId = 'sandbox_alipay_buyer'): { authCode: string; buyerOpenId: string } {
    const authCode = `sandbox${randomBytes(12).toString('hex')}`;
    this.authCodes.set(authCode, { openId: buyerOpenId, expiresAt: this.now() + AUTH_CODE_TTL_MS });
    return { authCode, buyerOpenId };
  }

  private oauthToken(p: Params): Record<string, string> {
    if (p.grant_type !== 'authorization_code') throw invalid('isv.grant-type-invalid', `不支持的grant_type: ${p.grant_type ?? ''}`);
    const issued = this.authCodes.get(p.code ?? '');
    this.authCodes.delete(p.code ?? '');
    if (!issued || issued.expiresAt < this.now()) throw invalid('isv.code-invalid', '授权码code无效');
    const now = this.now();
    return {
      open_id: issued.openId,
      access_token: `authusrB${randomBytes(12).toString('hex')}`,
      expires_in: '1296000',
      refresh_token: `authusrB${randomBytes(12).toString('hex')}`,
      re_expires_in: '2592000',
      auth_start: dashedTime(now),
    };
  }

  /**
   * The order of a signed `alipay.trade.wap.pay` URL's parameters, for the cashier page; refused
   * (SandboxAlipayRefusal) as Alipay's gateway refuses a request it cannot take.
   */
  wapOrder(params: Params): WapOrder {
    try {
      if (params.method !== 'alipay.trade.wap.pay') throw invalid('isv.invalid-method', `不存在的方法名: ${params.method ?? ''}`);
      this.checkRequest(params);
      const biz = this.bizContent(params);
      this.checkOrder(biz);
      if (biz.product_code !== 'QUICK_WAP_WAY') throw invalid('isv.invalid-parameter', 'product_code must be QUICK_WAP_WAY');
      const trade = this.trades.get(tradeKey(params.app_auth_token, biz.out_trade_no));
      if (trade) this.expire(trade);
      const expireAt = biz.time_expire ? parseDashedTime(biz.time_expire) : null;
      const expired = !trade && expireAt !== null && this.now() > expireAt;
      return {
        outTradeNo: biz.out_trade_no,
        merchantOrderNo: biz.merchant_order_no || null,
        subject: biz.subject,
        totalCents: parseCents(biz.total_amount),
        status: expired ? 'EXPIRED' : (trade?.status ?? 'WAIT_BUYER_PAY'),
        returnUrl: params.return_url || null,
        quitUrl: biz.quit_url || null,
      };
    } catch (e) {
      if (e instanceof Fail) throw new SandboxAlipayRefusal(e.subCode, e.message);
      throw e;
    }
  }

  /**
   * Where the WAP page sends a payer who paid: `return_url` with Alipay's synchronous return
   * parameters (`method=alipay.trade.wap.pay.return`), signed as Alipay signs them.
   */
  wapReturnUrl(returnUrl: string, trade: Trade): string {
    const params = signedNotification(
      {
        charset: 'utf-8',
        out_trade_no: trade.outTradeNo,
        method: 'alipay.trade.wap.pay.return',
        total_amount: formatCents(trade.totalCents),
        trade_no: trade.tradeNo,
        auth_app_id: this.opts.appId,
        version: '1.0',
        app_id: this.opts.appId,
        seller_id: '2088000000000001',
        timestamp: dashedTime(this.now()),
      },
      this.privateKey,
    );
    const url = new URL(returnUrl);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.toString();
  }

  /** The payer scans a precreated code (`qr_code`) and pays. */
  async scanAndPay(qrCode: string, buyerOpenId: string): Promise<Trade> {
    const code = this.codes.get(qrCode);
    if (!code) throw new Error('no such Alipay code');
    if (this.now() > code.expireAt) throw new Error('the code has expired');
    const key = tradeKey(code.appAuthToken, code.biz.out_trade_no);
    const trade = this.trades.get(key) ?? this.newTrade(code.appAuthToken, code.biz, code.notifyUrl, code.expireAt);
    return this.pay(trade, buyerOpenId);
  }

  /** The Alipay app pays an `alipay.trade.app.pay` order string, or the WAP page a `alipay.trade.wap.pay` URL: both are signed by the application. */
  async payOrderString(orderStr: string, buyerOpenId: string): Promise<Trade> {
    return this.paySigned(Object.fromEntries(new URLSearchParams(orderStr)), 'alipay.trade.app.pay', buyerOpenId);
  }

  async payWapUrl(url: string, buyerOpenId: string): Promise<Trade> {
    return this.paySigned(Object.fromEntries(new URL(url).searchParams), 'alipay.trade.wap.pay', buyerOpenId);
  }

  /** The payer pays a trade made by `alipay.trade.create` (`my.tradePay({tradeNO})`); by default, the buyer it was made for. */
  async payTradeNo(tradeNo: string, buyerOpenId?: string): Promise<Trade> {
    const trade = [...this.trades.values()].find((t) => t.tradeNo === tradeNo);
    if (!trade) throw new Error('no such trade');
    if (trade.buyerOpenId && buyerOpenId && trade.buyerOpenId !== buyerOpenId) throw new Error('the trade is for another buyer');
    return this.pay(trade, buyerOpenId ?? trade.buyerOpenId ?? 'sandbox_alipay_buyer');
  }

  /** What the stand-in holds of a merchant's trade (tests and people look at the platform's side): undefined before it exists. */
  trade(
    appAuthToken: string,
    outTradeNo: string,
  ): { status: TradeStatus; tradeNo: string; totalCents: number; refunds: Array<{ outRequestNo: string; cents: number }> } | undefined {
    const t = this.trades.get(tradeKey(appAuthToken, outTradeNo));
    if (!t) return undefined;
    this.expire(t);
    return {
      status: t.status,
      tradeNo: t.tradeNo,
      totalCents: t.totalCents,
      refunds: [...t.refunds].map(([outRequestNo, r]) => ({ outRequestNo, cents: r.cents })),
    };
  }

  /** A merchant withdraws its authorization of the application: every call with its token is refused from now on. */
  revoke(appAuthToken: string): void {
    this.revoked.add(appAuthToken);
  }

  /** Resolves once the notifications under way are answered (or failed). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private inFlight(p: Promise<unknown>): void {
    const tracked = p.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(tracked);
    void tracked.then(() => this.pending.delete(tracked));
  }

  /** Sends a trade's current state again (Alipay repeats unacknowledged notifications). */
  async renotify(appAuthToken: string, outTradeNo: string): Promise<boolean> {
    const t = this.trades.get(tradeKey(appAuthToken, outTradeNo));
    if (!t) throw new Error('no such trade');
    return this.notify(t, undefined, { resend: true });
  }

  private async paySigned(params: Params, method: string, buyerOpenId: string): Promise<Trade> {
    if (params.method !== method) throw new Error(`not an ${method} request`);
    this.checkRequest(params);
    const biz = this.bizContent(params);
    const key = tradeKey(params.app_auth_token, biz.out_trade_no);
    const expireAt = biz.time_expire ? (parseDashedTime(biz.time_expire) ?? 0) : this.now() + 15 * 86_400_000;
    if (this.now() > expireAt) throw new Error('the order has expired');
    const trade = this.trades.get(key) ?? this.newTrade(params.app_auth_token, biz, params.notify_url, expireAt);
    return this.pay(trade, buyerOpenId);
  }

  private async pay(trade: Trade, buyerOpenId: string): Promise<Trade> {
    this.expire(trade);
    if (trade.status !== 'WAIT_BUYER_PAY') throw new Error(`the trade is ${trade.status}`);
    trade.status = 'TRADE_SUCCESS';
    trade.paidAt = Math.floor(this.now() / 1000) * 1000;
    trade.buyerOpenId = buyerOpenId;
    await this.notify(trade);
    return trade;
  }

  private checkRequest(p: Params, as: { appId: string; merchant: boolean } = { appId: this.opts.appId, merchant: true }): void {
    if (!as.appId || p.app_id !== as.appId) throw invalid('isv.invalid-app-id', '无效的AppID参数');
    if (p.sign_type !== 'RSA2') throw invalid('isv.invalid-signature-type', 'sign_type must be RSA2');
    if ((p.charset ?? 'utf-8').toLowerCase() !== 'utf-8') throw invalid('isv.invalid-charset', 'charset must be utf-8');
    if (p.version !== '1.0') throw invalid('isv.invalid-version', 'version must be 1.0');
    const at = parseDashedTime(p.timestamp);
    if (at === null || Math.abs(at - this.now()) > TIMESTAMP_SLACK_MS)
      throw invalid('isv.invalid-timestamp', `timestamp ${p.timestamp} is not China time now (${dashedTime(this.now())})`);
    if (!requestVerifies(p, this.opts.appPublicKey))
      throw invalid('isv.invalid-signature', `验签出错，网关生成的验签字符串为：${signingText(p).slice(0, 300)}`);
    if (!as.merchant) return;
    if (!p.app_auth_token) throw new Fail('20001', 'Insufficient Token Permissions', 'aop.invalid-app-auth-token', 'app_auth_token is required');
    if (this.revoked.has(p.app_auth_token)) throw new Fail('20001', 'Insufficient Token Permissions', 'aop.invalid-app-auth-token', '无效的应用授权令牌');
  }

  private bizContent(p: Params): Record<string, string> {
    let biz: unknown;
    try {
      biz = JSON.parse(p.biz_content ?? '');
    } catch {
      throw invalid('isv.invalid-parameter', 'biz_content is not JSON');
    }
    if (!biz || typeof biz !== 'object' || Array.isArray(biz)) throw invalid('isv.invalid-parameter', 'biz_content is not an object');
    return Object.fromEntries(Object.entries(biz).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  }

  /** The payment codes charged so far: a code is good once. */
  private readonly usedCodes = new Set<string>();

  /**
   * `alipay.trade.pay` with a payment code (`scene: bar_code`): 10000 paid, 10003 the payer confirms
   * on the phone, 40004 refused (a code that is not Alipay's, used before, a short balance); a
   * `silent` code pays and is never answered (sandbox-codes.ts says how a code goes).
   */
  private codePay(nodeName: string, p: Params, biz: Record<string, string>): string | null {
    if (biz.scene !== 'bar_code') throw invalid('isv.invalid-parameter', 'scene must be bar_code');
    this.checkOrder(biz);
    const key = tradeKey(p.app_auth_token, biz.out_trade_no);
    const existing = this.trades.get(key);
    if (existing) {
      this.ripen(existing);
      if (existing.status === 'TRADE_SUCCESS') return this.answer(nodeName, { code: '10000', msg: 'Success', ...this.paidNode(existing) });
      throw business('ACQ.TRADE_HAS_CLOSE', '交易已经关闭');
    }
    const code = biz.auth_code ?? '';
    if (!ALIPAY_CODE.test(code)) throw business('ACQ.PAYMENT_AUTH_CODE_INVALID', '支付失败，获取顾客账户信息失败，请顾客刷新付款码后重新收款');
    if (this.usedCodes.has(code)) throw business('ACQ.PAYMENT_AUTH_CODE_INVALID', '付款码已使用，请顾客刷新付款码后重新收款');
    this.usedCodes.add(code);
    const behaviour = behaviourOf(code);
    if (behaviour === 'balance') throw business('ACQ.BUYER_BALANCE_NOT_ENOUGH', '买家余额不足');
    const t = this.newTrade(p.app_auth_token, biz, p.notify_url, this.now() + 15 * 86_400_000);
    t.paymentCode = { code, confirmAt: behaviour === 'confirm' ? this.now() + CONFIRM_AFTER_MS : undefined };
    if (behaviour === 'confirm' || behaviour === 'never') {
      return this.answer(nodeName, { code: '10003', msg: ' order success pay inprocess', trade_no: t.tradeNo, out_trade_no: t.outTradeNo });
    }
    this.paidNow(t, 'sandbox_alipay_buyer');
    if (behaviour === 'silent') return null;
    return this.answer(nodeName, { code: '10000', msg: 'Success', ...this.paidNode(t) });
  }

  private paidNode(t: Trade): Record<string, string> {
    return {
      trade_no: t.tradeNo,
      out_trade_no: t.outTradeNo,
      buyer_open_id: t.buyerOpenId ?? '',
      total_amount: formatCents(t.totalCents),
      receipt_amount: formatCents(t.totalCents),
      gmt_payment: dashedTime(t.paidAt ?? this.now()),
    };
  }

  /** Paid now, its notification sent in the background (a code payment's answer does not wait for it). */
  private paidNow(t: Trade, buyerOpenId: string): void {
    t.status = 'TRADE_SUCCESS';
    t.paidAt = Math.floor(this.now() / 1000) * 1000;
    t.buyerOpenId = buyerOpenId;
    this.inFlight(this.notify(t));
  }

  /** A `confirm` code's trade whose payer has confirmed by now. */
  private ripen(t: Trade): void {
    const at = t.paymentCode?.confirmAt;
    if (t.status === 'WAIT_BUYER_PAY' && at !== undefined && this.now() >= at) this.paidNow(t, 'sandbox_alipay_buyer');
  }

  /** The payer confirms a payment code's trade on the phone: paid. False when no trade waits under this code. */
  confirmCode(code: string): boolean {
    const t = [...this.trades.values()].find((x) => x.paymentCode?.code === code);
    if (!t || t.status !== 'WAIT_BUYER_PAY') return false;
    this.paidNow(t, 'sandbox_alipay_buyer');
    return true;
  }

  private perform(
    method: Exclude<Method, 'alipay.system.oauth.token' | 'alipay.trade.pay'>,
    p: Params,
    biz: Record<string, string>,
    base: string,
  ): Record<string, string> {
    switch (method) {
      case 'alipay.trade.cancel': {
        // 撤销: an unpaid trade is closed, a paid one refunded in full; asked again, nothing more moves.
        const t = this.find(p, biz);
        t.cancelsAsked = (t.cancelsAsked ?? 0) + 1;
        if (t.cancelsAsked <= (this.faults().alipayCancelRetries ?? 0)) {
          return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo, retry_flag: 'Y', action: '' };
        }
        this.ripen(t);
        const action = t.status === 'TRADE_SUCCESS' ? 'refund' : t.status === 'WAIT_BUYER_PAY' ? 'close' : '';
        if (action === 'refund') t.refunds.set(`cancel_${t.outTradeNo}`.slice(0, 64), { cents: t.totalCents, at: Math.floor(this.now() / 1000) * 1000 });
        t.status = 'TRADE_CLOSED';
        return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo, retry_flag: 'N', action };
      }
      case 'alipay.data.dataservice.bill.downloadurl.query': {
        if (biz.bill_type !== 'trade') throw invalid('isv.invalid-parameter', 'the sandbox keeps bill_type trade only');
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(biz.bill_date ?? '');
        const valid = m && new Date(`${biz.bill_date}T00:00:00Z`).toISOString().slice(0, 10) === biz.bill_date;
        if (!valid) throw invalid('isv.invalid-parameter', 'bill_date must be yyyy-MM-dd (the sandbox keeps daily bills only)');
        const trades = [...this.trades.values()].filter((t) => t.appAuthToken === p.app_auth_token);
        const url = this.bills.link(p.app_auth_token, biz.bill_date, trades, base);
        // A day to come, or one without trade: Alipay has no bill.
        if (!url) throw business('isp.bill_not_exist', '账单不存在');
        return { bill_download_url: url };
      }
      case 'alipay.trade.precreate': {
        this.checkOrder(biz);
        const m = /^([1-9][0-9]*)m$/.exec(biz.timeout_express ?? '');
        const expireAt = m ? this.now() + Number(m[1]) * 60_000 : this.now() + 2 * 3_600_000;
        const qr = `https://qr.alipay.com/sandbox${randomBytes(9).toString('hex')}`;
        this.codes.set(qr, { appAuthToken: p.app_auth_token, biz, notifyUrl: p.notify_url, expireAt });
        return { out_trade_no: biz.out_trade_no, qr_code: qr };
      }
      case 'alipay.trade.create': {
        this.checkOrder(biz);
        if (biz.product_code !== 'JSAPI_PAY') throw invalid('isv.invalid-parameter', 'product_code must be JSAPI_PAY');
        if (!biz.buyer_open_id && !biz.buyer_id) throw business('ACQ.INVALID_PARAMETER', 'buyer_open_id is required');
        if (!biz.op_app_id) throw business('ACQ.INVALID_PARAMETER', 'op_app_id is required for a mini-program payment');
        const expireAt = biz.time_expire ? parseDashedTime(biz.time_expire) : this.now() + 15 * 86_400_000;
        if (expireAt === null) throw invalid('isv.invalid-parameter', 'time_expire must be yyyy-MM-dd HH:mm:ss');
        const existing = this.trades.get(tradeKey(p.app_auth_token, biz.out_trade_no));
        if (existing) {
          if (existing.totalCents !== parseCents(biz.total_amount)) throw business('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改');
          return { out_trade_no: existing.outTradeNo, trade_no: existing.tradeNo };
        }
        const t = this.newTrade(p.app_auth_token, biz, p.notify_url, expireAt);
        t.buyerOpenId = biz.buyer_open_id || biz.buyer_id;
        return { out_trade_no: t.outTradeNo, trade_no: t.tradeNo };
      }
      case 'alipay.trade.query': {
        const t = this.find(p, biz);
        this.ripen(t);
        const out: Record<string, string> = {
          trade_no: t.tradeNo,
          out_trade_no: t.outTradeNo,
          trade_status: t.status,
          total_amount: formatCents(t.totalCents),
        };
        if (t.paidAt !== undefined) {
          out.send_pay_date = dashedTime(t.paidAt);
          out.buyer_pay_amount = formatCents(t.totalCents);
        }
        if (t.buyerOpenId) out.buyer_open_id = t.buyerOpenId;
        return out;
      }
      case 'alipay.trade.close': {
        const t = this.find(p, biz);
        if (t.status === 'TRADE_SUCCESS') throw business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
        t.status = 'TRADE_CLOSED';
        return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo };
      }
      case 'alipay.trade.refund': {
        const t = this.find(p, biz);
        const reqNo = biz.out_request_no || t.outTradeNo;
        if (!OUT_NO.test(reqNo)) throw invalid('isv.invalid-parameter', 'out_request_no is malformed');
        const cents = this.amount(biz.refund_amount, 'refund_amount');
        const earlier = t.refunds.get(reqNo);
        const refunded = () => [...t.refunds.values()].reduce((s, r) => s + r.cents, 0);
        if (earlier) {
          // The same request again: nothing moves.
          return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo, fund_change: 'N', refund_fee: formatCents(refunded()) };
        }
        if (t.status !== 'TRADE_SUCCESS') throw business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
        if (refunded() + cents > t.totalCents) throw business('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '退款金额超限');
        t.refunds.set(reqNo, { cents, at: Math.floor(this.now() / 1000) * 1000 });
        if (refunded() === t.totalCents) t.status = 'TRADE_CLOSED';
        this.inFlight(this.notify(t, reqNo));
        return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo, fund_change: 'Y', refund_fee: formatCents(refunded()), buyer_open_id: t.buyerOpenId ?? '' };
      }
      case 'alipay.trade.fastpay.refund.query': {
        const t = this.find(p, biz);
        const reqNo = biz.out_request_no || t.outTradeNo;
        const r = t.refunds.get(reqNo);
        // Not taken: named without a refund_status when it was received (answered ACQ.SYSTEM_ERROR), else nothing of it.
        if (!r && t.untaken.has(reqNo))
          return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo, out_request_no: reqNo, total_amount: formatCents(t.totalCents) };
        if (!r) return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo };
        return {
          trade_no: t.tradeNo,
          out_trade_no: t.outTradeNo,
          out_request_no: reqNo,
          total_amount: formatCents(t.totalCents),
          refund_amount: formatCents(r.cents),
          refund_status: 'REFUND_SUCCESS',
          gmt_refund_pay: dashedTime(r.at),
        };
      }
    }
  }

  private checkOrder(biz: Record<string, string>): void {
    if (!OUT_NO.test(biz.out_trade_no ?? '')) throw invalid('isv.invalid-parameter', 'out_trade_no: letters, digits and _, at most 64');
    this.amount(biz.total_amount, 'total_amount');
    if (!biz.subject) throw invalid('isv.missing-parameter', 'subject is required');
    if (biz.merchant_order_no !== undefined && !(typeof biz.merchant_order_no === 'string' && biz.merchant_order_no.length <= 32))
      throw invalid('isv.invalid-parameter', 'merchant_order_no: at most 32 characters');
  }

  private amount(text: string | undefined, what: string): number {
    if (!/^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/.test(text ?? '')) throw invalid('isv.invalid-parameter', `${what} is not a yuan amount`);
    try {
      return parseCents(text);
    } catch {
      throw invalid('isv.invalid-parameter', `${what} is out of range`);
    }
  }

  private newTrade(appAuthToken: string, biz: Record<string, string>, notifyUrl: string | undefined, expireAt: number): Trade {
    this.checkOrder(biz);
    const now = this.now();
    const t: Trade = {
      appAuthToken,
      outTradeNo: biz.out_trade_no,
      tradeNo: `${dashedTime(now).replace(/\D/g, '').slice(0, 8)}2200${String(++this.seq).padStart(6, '0')}${randomBytes(4).toString('hex')}`,
      totalCents: parseCents(biz.total_amount),
      subject: biz.subject,
      notifyUrl,
      expireAt,
      status: 'WAIT_BUYER_PAY',
      createdAt: Math.floor(now / 1000) * 1000,
      refunds: new Map(),
      untaken: new Set(),
    };
    this.trades.set(tradeKey(appAuthToken, t.outTradeNo), t);
    return t;
  }

  private find(p: Params, biz: Record<string, string>): Trade {
    const t = biz.out_trade_no
      ? this.trades.get(tradeKey(p.app_auth_token, biz.out_trade_no))
      : [...this.trades.values()].find((x) => x.appAuthToken === p.app_auth_token && x.tradeNo === biz.trade_no);
    if (!t) throw business('ACQ.TRADE_NOT_EXIST', '交易不存在');
    this.expire(t);
    return t;
  }

  /** An unpaid trade past its expiry is closed. */
  private expire(t: Trade): void {
    if (t.status === 'WAIT_BUYER_PAY' && this.now() > t.expireAt) t.status = 'TRADE_CLOSED';
  }

  /**
   * The notification of a trade's state (after a refund: with `refund_fee`, `gmt_refund`, `out_biz_no`).
   * As Alipay: lost under the faults `payNotifications` / `refundNotifications: "drop"` (but for an
   * explicit `resend`); repeated on `retrySchedule` while not answered `success`; once answered,
   * sent `duplicates` more times, which the kit must take without changing anything.
   */
  private async notify(t: Trade, refundRequestNo?: string, how: { resend?: boolean } = {}): Promise<boolean> {
    if (!t.notifyUrl) return false;
    const faults = this.faults();
    if (!how.resend && (refundRequestNo ? faults.refundNotifications : faults.payNotifications) === 'drop') return false;
    const now = this.now();
    const form: Params = {
      notify_time: dashedTime(now),
      notify_type: 'trade_status_sync',
      notify_id: `${dashedTime(now).replace(/\D/g, '')}${randomBytes(8).toString('hex')}`,
      app_id: this.opts.appId,
      charset: 'utf-8',
      version: '1.0',
      trade_no: t.tradeNo,
      out_trade_no: t.outTradeNo,
      trade_status: t.status,
      total_amount: formatCents(t.totalCents),
      subject: t.subject,
      gmt_create: dashedTime(t.createdAt),
    };
    if (t.paidAt !== undefined) {
      form.gmt_payment = dashedTime(t.paidAt);
      form.receipt_amount = formatCents(t.totalCents);
      form.buyer_pay_amount = formatCents(t.totalCents);
    }
    if (t.buyerOpenId) form.buyer_open_id = t.buyerOpenId;
    if (t.refunds.size > 0) {
      const last = refundRequestNo ? t.refunds.get(refundRequestNo) : undefined;
      form.refund_fee = formatCents([...t.refunds.values()].reduce((s, r) => s + r.cents, 0));
      form.gmt_refund = `${dashedTime(last?.at ?? now)}.000`;
      if (refundRequestNo) form.out_biz_no = refundRequestNo;
    }
    const signed = signedNotification(form, this.privateKey);
    return this.deliver(t.notifyUrl, signed, 1);
  }

  /**
   * One sending (`attempt` 1, then 2, 3… for the repeats): acknowledged, the duplicates follow; not,
   * the next repeat is due after the schedule's next wait, until the schedule ends.
   */
  private async deliver(url: string, form: Params, attempt: number): Promise<boolean> {
    const acknowledged = await this.send(url, form, attempt);
    if (acknowledged) {
      for (let i = 1; i <= (this.opts.duplicates ?? 0); i++) this.inFlight(this.send(url, form, attempt + i));
      return true;
    }
    const wait = (this.opts.retrySchedule ?? [])[attempt - 1];
    if (wait !== undefined) {
      const timer = this.clock.setTimeout(() => void this.deliver(url, form, attempt + 1), wait);
      // A development server's pending repeats never keep it running.
      timer.unref();
    }
    return false;
  }

  /** Posts one notification; true when answered `success`. */
  private async send(url: string, form: Params, attempt: number): Promise<boolean> {
    const notice: SandboxAlipayNotice = { url, form, acknowledged: false, attempt };
    this.notices.push(notice);
    try {
      const res = await this.post(url, new URLSearchParams(form).toString());
      notice.acknowledged = res.status === 200 && res.text.trim() === 'success';
    } catch {
      notice.acknowledged = false;
    }
    return notice.acknowledged;
  }

  /** An answer as Alipay writes it: the node's JSON with `/` as `\/`, signed over that text (unless `signed` is false). */
  private answer(nodeName: string, node: Record<string, string>, signed = true): string {
    const clean = Object.fromEntries(Object.entries(node).filter(([, v]) => v !== ''));
    const text = JSON.stringify(clean).replace(/\//g, '\\/');
    return signed ? `{"${nodeName}":${text},"sign":"${rsa2(text, this.privateKey)}"}` : `{"${nodeName}":${text}}`;
  }
}

const tradeKey = (appAuthToken: string, outTradeNo: string): string => `${appAuthToken}\u0000${outTradeNo}`;
