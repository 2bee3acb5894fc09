/**
 * The Alipay open platform gateway client (protocol `version` 1.0, `format` JSON, `charset` utf-8,
 * `sign_type` RSA2) of a service provider's application acting for merchants: each call carries the
 * merchant's `app_auth_token`, the `timestamp` in China time whatever the host's `TZ`, and in
 * certificate mode `app_cert_sn` and `alipay_root_cert_sn`. Answers are used only once their
 * signature is verified over the response node's raw text (in certificate mode against the
 * certificate named by `alipay_cert_sn`), then read into kit facts (`facts.ts`).
 */
import { systemClock, type Clock } from '@kit/shared/clock';
import { formatCents, parseCents } from '@kit/shared';
import type { AlipayCredentials } from './settings';
import { AlipayError } from './errors';
import { AnswerFormatError, readAnswer, rsa2Verify, signRequest, type Params } from './sign';
import { alipayTime, parseAlipayTime } from './time';
import {
  billFacts,
  closeFacts,
  queryFacts,
  refundFacts,
  refundQueryFacts,
  type AlipayBillFacts,
  type AlipayCloseFacts,
  type AlipayRefundFacts,
  type AlipayRefundQueryFacts,
  type AlipayTradeFacts,
} from './facts';

/** What the gateway's HTTP exchange gives back; tests and the sandbox can stand in for `fetch`. */
export type AlipayTransport = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number; text: string }>;

const fetchTransport: AlipayTransport = async (url, init) => {
  const res = await fetch(url, init);
  return { status: res.status, text: await res.text() };
};

export interface AlipayClientOptions {
  /** Time limit of one call; 10 s by default. */
  timeoutMs?: number;
  /** The clock of the requests' `timestamp` and time limits, and of the orders' expiry (the system clock by default). */
  clock?: Clock;
  transport?: AlipayTransport;
}

/** Alipay's out_trade_no and out_request_no: letters, digits and `_`, at most 64. */
const OUT_NO = /^[A-Za-z0-9_]{1,64}$/;

/** A kit order as Alipay is told about it. */
export interface AlipayOrder {
  /** The merchant's authorization (third-party app authorization). */
  appAuthToken: string;
  outTradeNo: string;
  /**
   * The merchant's own order number as its payer knows it (`merchant_order_no`, 商户原始订单号, at most
   * 32 characters; in the biz content of precreate, create, app.pay and wap.pay alike, alipay-sdk-java's
   * models): the kit's prepay id, which the POS shows, while `out_trade_no` is the channel order's.
   */
  merchantOrderNo?: string;
  totalCents: number;
  /** The merchant's display name. */
  subject: string;
  /** Unix ms after which the order cannot be paid; Alipay's expiry is never later. */
  expireAt: number;
  /** `<PUBLIC_URL>/pay-notify/alipay`. */
  notifyUrl: string;
}

export interface AlipayTradeRef {
  appAuthToken: string;
  outTradeNo: string;
}

/** The calls' common parameters that go in the URL, as the official SDKs send them; `biz_content` goes in the body. */
const URL_PARAMS = new Set([
  'app_id',
  'method',
  'format',
  'charset',
  'sign_type',
  'sign',
  'timestamp',
  'version',
  'notify_url',
  'return_url',
  'app_auth_token',
  'app_cert_sn',
  'alipay_root_cert_sn',
]);

export class AlipayClient {
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly transport: AlipayTransport;

  constructor(
    readonly credentials: AlipayCredentials,
    opts: AlipayClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.clock = opts.clock ?? systemClock;
    this.transport = opts.transport ?? fetchTransport;
  }

  /** `alipay.trade.precreate`: the code payers scan (`qr_code`). No trade exists at Alipay until one scans it. */
  async precreate(order: AlipayOrder): Promise<{ outTradeNo: string; qrCode: string }> {
    const node = await this.call('alipay.trade.precreate', order.appAuthToken, { ...this.orderBiz(order, 'precreate') }, order.notifyUrl);
    const qrCode = stringField(node, 'qr_code');
    if (!qrCode) throw formatError('alipay.trade.precreate', 'qr_code missing');
    return { outTradeNo: order.outTradeNo, qrCode };
  }

  /** `alipay.trade.create` for the Alipay mini-program (`my.tradePay({tradeNO})`): the payer's `buyer_open_id`. */
  async create(order: AlipayOrder & { buyerOpenId: string }): Promise<{ outTradeNo: string; tradeNo: string }> {
    const opAppId = this.credentials.miniAppId;
    if (!opAppId) throw new AlipayError('alipay.trade.create', 'refused', 'ALIPAY_MINI_APP_ID is not set: the mini-program payers open is unknown');
    const biz = { ...this.orderBiz(order, 'expire'), product_code: 'JSAPI_PAY', op_app_id: opAppId, buyer_open_id: order.buyerOpenId };
    const node = await this.call('alipay.trade.create', order.appAuthToken, biz, order.notifyUrl);
    const tradeNo = stringField(node, 'trade_no');
    if (!tradeNo) throw formatError('alipay.trade.create', 'trade_no missing');
    return { outTradeNo: order.outTradeNo, tradeNo };
  }

  /** The signed `alipay.trade.app.pay` order string the Alipay app SDK is given (`k=urlencoded(v)&…`). */
  appPayOrderString(order: AlipayOrder): string {
    const params = this.signed(
      'alipay.trade.app.pay',
      order.appAuthToken,
      { ...this.orderBiz(order, 'expire'), product_code: 'QUICK_MSECURITY_PAY' },
      { notify_url: order.notifyUrl },
    );
    return Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');
  }

  /** The signed `alipay.trade.wap.pay` URL a payer page opens in Alipay's browser (GET on the gateway). */
  wapPayUrl(order: AlipayOrder & { returnUrl?: string }): string {
    const biz: Record<string, unknown> = { ...this.orderBiz(order, 'expire'), product_code: 'QUICK_WAP_WAY' };
    if (order.returnUrl) biz.quit_url = order.returnUrl;
    const extra: Params = { notify_url: order.notifyUrl };
    if (order.returnUrl) extra.return_url = order.returnUrl;
    const params = this.signed('alipay.trade.wap.pay', order.appAuthToken, biz, extra);
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');
    return `${this.credentials.gatewayUrl}${this.credentials.gatewayUrl.includes('?') ? '&' : '?'}${query}`;
  }

  /**
   * `alipay.trade.pay` with the payer's payment code (当面付条码支付, `scene: bar_code`, 7.4): `paid`
   * (10000), or `waiting` (a signed 10003: the payer confirms on the phone; the query follows it). A
   * refusal (40004: a used or invalid code, a short balance) throws AlipayError `refused`; no answer
   * or 20000 / `ACQ.SYSTEM_ERROR` throws one that is `retryable`, which says nothing of the money.
   */
  async tradePay(
    order: AlipayOrder & { authCode: string; deviceId?: string },
  ): Promise<{ state: 'paid'; tradeNo: string; paidAt?: number; amountCents?: number } | { state: 'waiting' }> {
    const biz: Record<string, unknown> = { ...this.orderBiz(order, 'expire'), scene: 'bar_code', auth_code: order.authCode };
    if (order.deviceId) biz.terminal_id = order.deviceId;
    let node: Record<string, unknown>;
    try {
      node = await this.call('alipay.trade.pay', order.appAuthToken, biz, order.notifyUrl);
    } catch (e) {
      if (e instanceof AlipayError && e.failure === 'refused' && !e.unsigned && e.details.code === '10003') return { state: 'waiting' };
      throw e;
    }
    const tradeNo = stringField(node, 'trade_no');
    if (!tradeNo) throw formatError('alipay.trade.pay', 'trade_no missing');
    const paidAt = parseAlipayTime(stringField(node, 'gmt_payment') ?? '');
    const amount = stringField(node, 'total_amount');
    return { state: 'paid', tradeNo, paidAt: paidAt ?? undefined, amountCents: amount && /^\d+(\.\d{1,2})?$/.test(amount) ? parseCents(amount) : undefined };
  }

  /** `alipay.trade.cancel` (统一收单交易撤销): the trade undone whatever its state, money taken returned; `again` when Alipay says `retry_flag: "Y"`. */
  async cancel(ref: AlipayTradeRef): Promise<{ again: boolean }> {
    const node = await this.call('alipay.trade.cancel', ref.appAuthToken, { out_trade_no: checkOutNo(ref.outTradeNo) });
    return { again: stringField(node, 'retry_flag') === 'Y' };
  }

  /** `alipay.trade.query`. A signed `ACQ.TRADE_NOT_EXIST` (a code nobody scanned yet) is "unpaid, ask again", never closed. */
  async query(ref: AlipayTradeRef): Promise<AlipayTradeFacts> {
    try {
      return queryFacts(ref.outTradeNo, await this.call('alipay.trade.query', ref.appAuthToken, { out_trade_no: checkOutNo(ref.outTradeNo) }));
    } catch (e) {
      if (signedRefusal(e, 'ACQ.TRADE_NOT_EXIST')) return { outTradeNo: ref.outTradeNo, state: 'unpaid', exists: false };
      throw e;
    }
  }

  /** `alipay.trade.close`. A trade that does not exist (an unscanned code: signed `ACQ.TRADE_NOT_EXIST`) answers `closed: false, exists: false`. */
  async close(ref: AlipayTradeRef): Promise<AlipayCloseFacts> {
    try {
      return closeFacts(ref.outTradeNo, await this.call('alipay.trade.close', ref.appAuthToken, { out_trade_no: checkOutNo(ref.outTradeNo) }));
    } catch (e) {
      if (signedRefusal(e, 'ACQ.TRADE_NOT_EXIST')) return { outTradeNo: ref.outTradeNo, closed: false, exists: false };
      throw e;
    }
  }

  /**
   * `alipay.trade.refund` of `refundCents`, idempotent by `outRequestNo` (keep it across retries):
   * a repeated request answers `fund_change: "N"`, which is not a failure.
   */
  async refund(ref: AlipayTradeRef & { outRequestNo: string; refundCents: number; reason?: string }): Promise<AlipayRefundFacts> {
    const biz: Record<string, unknown> = {
      out_trade_no: checkOutNo(ref.outTradeNo),
      out_request_no: checkOutNo(ref.outRequestNo),
      refund_amount: formatCents(ref.refundCents),
    };
    if (ref.reason) biz.refund_reason = ref.reason;
    return refundFacts(ref.outTradeNo, ref.outRequestNo, await this.call('alipay.trade.refund', ref.appAuthToken, biz));
  }

  /** `alipay.trade.fastpay.refund.query`: refunded once `refund_status` is `REFUND_SUCCESS`; none means Alipay did not take it (`facts.ts`). */
  async refundQuery(ref: AlipayTradeRef & { outRequestNo: string }): Promise<AlipayRefundQueryFacts> {
    const biz = { out_trade_no: checkOutNo(ref.outTradeNo), out_request_no: checkOutNo(ref.outRequestNo) };
    return refundQueryFacts(ref.outTradeNo, ref.outRequestNo, await this.call('alipay.trade.fastpay.refund.query', ref.appAuthToken, biz));
  }

  /**
   * `alipay.data.dataservice.bill.downloadurl.query` of a merchant's trade bill of one China day
   * (`yyyy-MM-dd`), available from the next morning; the link it gives expires in 30 seconds.
   */
  async billDownloadUrl(appAuthToken: string, billDate: string): Promise<AlipayBillFacts> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(billDate)) throw new TypeError(`billDate must be yyyy-MM-dd, got ${billDate}`);
    try {
      return billFacts(await this.call('alipay.data.dataservice.bill.downloadurl.query', appAuthToken, { bill_type: 'trade', bill_date: billDate }));
    } catch (e) {
      // No bill yet (too early in the day) or none that day.
      if (e instanceof AlipayError && !e.unsigned && /bill_not_exist/i.test(e.subCode ?? '')) return { ready: false };
      throw e;
    }
  }

  /** The signed parameters of a call (also the app order string's and the WAP URL's). */
  signed(method: string, appAuthToken: string, biz: Record<string, unknown>, extra: Params = {}): Params {
    if (!appAuthToken) throw new TypeError(`${method}: the merchant's app_auth_token is required`);
    return this.sign(this.credentials.appId, method, { app_auth_token: appAuthToken, ...extra, biz_content: JSON.stringify(biz) });
  }

  /** The common parameters of `appId`'s call, its own and the certificate mode's, signed. */
  private sign(appId: string, method: string, own: Params): Params {
    const c = this.credentials;
    const params: Params = {
      app_id: appId,
      method,
      format: 'JSON',
      charset: 'utf-8',
      sign_type: 'RSA2',
      timestamp: alipayTime(this.clock.now()),
      version: '1.0',
      ...own,
    };
    if (c.trust.mode === 'certificate') {
      params.app_cert_sn = c.trust.appCertSn;
      params.alipay_root_cert_sn = c.trust.alipayRootCertSn;
    }
    return signRequest(params, c.privateKey);
  }

  /**
   * `alipay.system.oauth.token` (`grant_type: authorization_code`): the payer of the mini-program's
   * `my.getAuthCode` code. The code belongs to the mini-program (`ALIPAY_MINI_APP_ID`), so the call
   * is the mini-program's own (its app id, no merchant's `app_auth_token`), signed with the
   * application key it shares with the kit's application. The payer is `open_id`, or `user_id`
   * for applications still on user ids.
   */
  async oauthToken(code: string): Promise<{ openId: string }> {
    const method = 'alipay.system.oauth.token';
    const miniAppId = this.credentials.miniAppId;
    if (!miniAppId) throw new AlipayError(method, 'refused', 'ALIPAY_MINI_APP_ID is not set: the mini-program whose codes these are is unknown');
    const node = await this.post(method, this.sign(miniAppId, method, { grant_type: 'authorization_code', code }));
    const openId = stringField(node, 'open_id') ?? stringField(node, 'user_id');
    if (!openId) throw formatError(method, 'neither open_id nor user_id');
    return { openId };
  }

  /**
   * One call: posts the signed request and returns the verified response node of a successful
   * answer (`code` 10000); throws AlipayError otherwise.
   */
  async call(method: string, appAuthToken: string, biz: Record<string, unknown>, notifyUrl?: string): Promise<Record<string, unknown>> {
    return this.post(method, this.signed(method, appAuthToken, biz, notifyUrl ? { notify_url: notifyUrl } : {}));
  }

  /** Posts signed parameters to the gateway; the verified response node of a successful answer. */
  private async post(method: string, params: Params): Promise<Record<string, unknown>> {
    const url = new URL(this.credentials.gatewayUrl);
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (URL_PARAMS.has(k)) url.searchParams.set(k, v);
      else body.set(k, v);
    }
    let status: number;
    let text: string;
    try {
      ({ status, text } = await this.transport(url.toString(), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8', accept: 'application/json' },
        body: body.toString(),
        signal: this.clock.timeout(this.timeoutMs),
      }));
    } catch (e) {
      throw new AlipayError(method, 'network', `Alipay ${method} could not be reached: ${(e as Error).message}`);
    }
    if (status !== 200) throw new AlipayError(method, 'http', `Alipay ${method} answered HTTP ${status}`, { httpStatus: status });
    return this.verifiedNode(method, text);
  }

  /** The response node of an answer's raw text, once its signature is verified. */
  verifiedNode(method: string, text: string): Record<string, unknown> {
    let answer;
    try {
      answer = readAnswer(text, method);
    } catch (e) {
      if (e instanceof AnswerFormatError) throw formatError(method, e.message);
      throw e;
    }
    const code = stringField(answer.node, 'code');
    if (!answer.sign) {
      // As Alipay's Java SDK reads answers (`AbstractAlipayClient.checkResponseSign`: a success, one
      // without `sub_code`, must be signed; a refusal may come unsigned, as the gateway's own
      // `error_response` does): a refusal naming its `sub_code` is read for its codes (`unsigned`);
      // anything else unsigned is not used at all.
      if (stringField(answer.node, 'sub_code')) throw AlipayError.refused(method, answer.node, { unsigned: true });
      const said = [code, stringField(answer.node, 'sub_msg')].filter(Boolean).join(' ');
      throw new AlipayError(method, 'signature', `Alipay ${method} answered without a signature${said ? ` (${said})` : ''}; the answer is not used`);
    }
    const trust = this.credentials.trust;
    if (trust.mode === 'certificate' && answer.alipayCertSn !== undefined && answer.alipayCertSn !== trust.alipayCertSn) {
      throw new AlipayError(
        method,
        'signature',
        `Alipay ${method} answered signed by certificate ${answer.alipayCertSn}, not ALIPAY_PUBLIC_CERT's ${trust.alipayCertSn}; the answer is not used (has Alipay renewed its certificate?)`,
      );
    }
    if (!rsa2Verify(answer.nodeText, answer.sign, trust.alipayPublicKey)) {
      throw new AlipayError(method, 'signature', `Alipay ${method} answer's signature does not verify; the answer is not used`);
    }
    // `alipay.system.oauth.token` answers its node without a `code` when it succeeds.
    const tokenAnswer = method === 'alipay.system.oauth.token' && answer.nodeName !== 'error_response' && code === undefined;
    if (code !== '10000' && !tokenAnswer) throw AlipayError.refused(method, answer.node);
    return answer.node;
  }

  private orderBiz(order: AlipayOrder, expiry: 'precreate' | 'expire'): Record<string, unknown> {
    if (!Number.isSafeInteger(order.totalCents) || order.totalCents <= 0) throw new TypeError(`totalCents must be a positive integer, got ${order.totalCents}`);
    const biz: Record<string, unknown> = { out_trade_no: checkOutNo(order.outTradeNo), total_amount: formatCents(order.totalCents), subject: order.subject };
    if (order.merchantOrderNo !== undefined) biz.merchant_order_no = order.merchantOrderNo.slice(0, 32);
    const now = this.clock.now();
    if (expiry === 'precreate') {
      // The face-to-face code's expiry is relative, in whole minutes (1m at least): rounded down, never later than the order's.
      const minutes = Math.floor((order.expireAt - now) / 60_000);
      if (minutes < 1) throw new AlipayError('alipay.trade.precreate', 'refused', 'the order expires within a minute: too late for an Alipay code');
      biz.timeout_express = `${minutes}m`;
    } else {
      if (order.expireAt - now < 1000) throw new AlipayError('alipay.trade', 'refused', 'the order has expired');
      // Whole seconds, rounded down: never later than the order's expiry.
      biz.time_expire = alipayTime(Math.floor(order.expireAt / 1000) * 1000);
    }
    return biz;
  }
}

function checkOutNo(v: string): string {
  if (!OUT_NO.test(v)) throw new TypeError(`Alipay allows letters, digits and _ (at most 64) in out_trade_no/out_request_no, got "${v}"`);
  return v;
}

/** A refusal Alipay signed, with this `sub_code`: only a signed answer is read for what it says of a trade. */
const signedRefusal = (e: unknown, subCode: string): boolean => e instanceof AlipayError && e.failure === 'refused' && !e.unsigned && e.subCode === subCode;

const stringField = (node: Record<string, unknown>, k: string): string | undefined => (typeof node[k] === 'string' ? (node[k] as string) : undefined);

const formatError = (method: string, why: string): AlipayError => new AlipayError(method, 'format', `Alipay ${method} answer is unreadable: ${why}`);
