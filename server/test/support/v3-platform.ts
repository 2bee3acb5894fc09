/**
 * A minimal API v3 platform of the social payment platform, service-provider (partner) mode, for
 * tests that referee the kit's payment codes over API v3. It shares no code with the kit (nothing
 * from server/src, the sandbox or @kit/shared): only node:crypto, node:http and
 * wechatpay-axios-plugin's own `Rsa` and `Formatter`, so that a mistake made the same way on both
 * sides cannot pass.
 *
 * It follows the platform's published rules (the API v3 rules, and the partner code-payment pages
 * whose fields wechatpay-php's `Pay/Partner/Transactions/Codepay`, `…/OutTradeNo/{out_trade_no}`
 * and `…/Reverse` document):
 * - a request carries `Accept: application/json`, a `User-Agent`, with a body `Content-Type:
 *   application/json`, and `Authorization: WECHATPAY2-SHA256-RSA2048 mchid="…",nonce_str="…",
 *   signature="…",timestamp="…",serial_no="…"`: SHA256-with-RSA over
 *   `METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY\n`, verified with the public key of the merchant API
 *   certificate `serial_no` names, for the service provider `mchid` names, `timestamp` within
 *   5 minutes of now; otherwise 401 `SIGN_ERROR`. A `Wechatpay-Serial` it names is the platform
 *   public key's id (the merchant is in public-key mode);
 * - answers, refusals included, are JSON with `Request-ID` and `Wechatpay-Timestamp`, `-Nonce`,
 *   `-Signature` (over `TIMESTAMP\nNONCE\nBODY\n` with the platform's private key) and `-Serial`
 *   (the `PUB_KEY_ID_…`); refusals are `{"code","message"}` with their HTTP status;
 * - `POST /v3/pay/partner/transactions/codepay`: `sp_mchid` (the signer's), `sub_mchid` (one of its
 *   sub-merchants), `description`, `out_trade_no` (6–32 of `[0-9A-Za-z_-*]`), `payer.auth_code`,
 *   `amount.total` (cents; `currency` CNY) and `scene_info` with `store_info` are required. Paid at
 *   once: 200 with the transaction; the payer confirming on the phone: 202 with `trade_state:
 *   USERPAYING`; a refused code: 400 `AUTH_CODE_INVALID` (unknown, or used: a code pays once),
 *   403 `NOT_ENOUGH` (the balance); the same `out_trade_no` with another code: 400 `OUT_TRADE_NO_USED`.
 *   (A `silent` code plays the answer that never comes: the money is taken, nothing is answered.)
 * - `GET /v3/pay/partner/transactions/out-trade-no/{out_trade_no}?sp_mchid=…&sub_mchid=…`: the
 *   transaction, `trade_state` USERPAYING until the payer confirms, then SUCCESS with
 *   `transaction_id`, `success_time`, `payer` and `amount.payer_total`; PAYERROR when refused,
 *   REVOKED once reversed; 404 `ORDER_NOT_EXIST`;
 * - `POST /v3/pay/partner/transactions/out-trade-no/{out_trade_no}/reverse` (`sp_mchid`,
 *   `sub_mchid`): 200 with the trade's ids; an unpaid trade is closed, a paid one's money goes back
 *   to the payer; the trade ends REVOKED; 404 `ORDER_NOT_EXIST`;
 * - anything else is 404 `NOT_FOUND`, and listed in `unserved`, so that a call the kit makes on
 *   its way there and this platform does not know shows.
 * The code payment sends no notification (its request names no `notify_url`): the kit learns a
 * payment the payer confirms from the order query.
 */
import { generateKeyPairSync, randomBytes, randomInt, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Formatter, Rsa } from 'wechatpay-axios-plugin';

/** A request the platform took (signed as the rules say), as it came. */
export interface V3PlatformCall {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown> | null;
}

/** How a payment code's payment goes: paid at once, confirmed on the phone (`confirm`), refused for the balance, or taken and never answered (`silent`). */
export type CodeBehaviour = 'pay' | 'confirm' | 'balance' | 'silent';

type TradeState = 'USERPAYING' | 'SUCCESS' | 'PAYERROR' | 'REVOKED';

interface Trade {
  spAppid?: string;
  subAppid?: string;
  subMchid: string;
  outTradeNo: string;
  attach?: string;
  total: number;
  authCode: string;
  state: TradeState;
  transactionId?: string;
  successTime?: string;
  openid: string;
  /** The payer's money given back by the reverse. */
  returned: boolean;
}

const TRADE_STATE_DESC: Record<TradeState, string> = {
  USERPAYING: '需要用户输入支付密码',
  SUCCESS: '支付成功',
  PAYERROR: '支付失败',
  REVOKED: '已撤销',
};

const pem = (k: KeyObject) => k.export({ format: 'pem', type: k.type === 'private' ? 'pkcs8' : 'spki' }).toString();
/** RFC 3339 in China Standard Time, as the platform writes times. */
const rfc3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000 + 8 * 3_600_000).toISOString().replace(/\.000Z$/, '+08:00');
const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

type Json = Record<string, unknown>;
const str = (o: unknown, k: string): string | undefined =>
  o && typeof o === 'object' && typeof (o as Json)[k] === 'string' ? ((o as Json)[k] as string) : undefined;
const obj = (o: unknown, k: string): Json | undefined => {
  const v = o && typeof o === 'object' ? (o as Json)[k] : undefined;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
};

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `WECHATPAY2-SHA256-RSA2048 k="v",…` read into its fields, or null. */
function authorizationOf(header: string | undefined): Record<string, string> | null {
  const m = /^WECHATPAY2-SHA256-RSA2048 (.+)$/.exec(header ?? '');
  if (!m) return null;
  const fields: Record<string, string> = {};
  for (const part of m[1].split(',')) {
    const kv = /^\s*(\w+)="([^"]*)"\s*$/.exec(part);
    if (!kv) return null;
    fields[kv[1]] = kv[2];
  }
  return fields;
}

export async function startV3Platform(opts: { spMchid?: string; spAppid?: string } = {}) {
  const spMchid = opts.spMchid ?? '1900007291';
  const spAppid = opts.spAppid ?? 'wx8888888888888888';
  // The merchant API key (made by the merchant; the platform holds its certificate's public key) and the platform's key.
  const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const merchantSerial = `5${randomBytes(19).toString('hex').toUpperCase()}`;
  const publicKeyId = `PUB_KEY_ID_01${spMchid}${digits(24)}`;
  const apiV3Key = randomBytes(16).toString('hex');

  const calls: V3PlatformCall[] = [];
  /** Requests refused before any endpoint ran (signature, headers…), with why. */
  const refused: { reason: string; method: string; url: string }[] = [];
  /** Requests to endpoints this platform does not serve. */
  const unserved: { method: string; url: string }[] = [];
  const subMerchants = new Set<string>();
  const codes = new Map<string, { behaviour: CodeBehaviour; used: boolean }>();
  const trades = new Map<string, Trade>();

  const answer = (res: http.ServerResponse, status: number, body: Json | null) => {
    const text = body === null ? '' : JSON.stringify(body);
    const timestamp = String(Formatter.timestamp());
    const nonce = Formatter.nonce();
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'request-id': `08${randomBytes(12).toString('hex').toUpperCase()}`,
      'wechatpay-timestamp': timestamp,
      'wechatpay-nonce': nonce,
      'wechatpay-serial': publicKeyId,
      'wechatpay-signature': Rsa.sign(Formatter.response(timestamp, nonce, text), platform.privateKey),
    });
    res.end(text);
  };

  /** Why the request breaks the API v3 rules, or null. */
  function ruleBroken(req: http.IncomingMessage, text: string): { status: number; code: string; reason: string } | null {
    if (!String(req.headers.accept ?? '').includes('application/json')) return { status: 400, code: 'INVALID_REQUEST', reason: 'Accept' };
    if (!req.headers['user-agent']) return { status: 400, code: 'INVALID_REQUEST', reason: 'User-Agent' };
    if (text && !String(req.headers['content-type'] ?? '').startsWith('application/json'))
      return { status: 400, code: 'INVALID_REQUEST', reason: 'Content-Type' };
    const auth = authorizationOf(req.headers.authorization);
    if (!auth) return { status: 401, code: 'SIGN_ERROR', reason: 'Authorization' };
    if (auth.mchid !== spMchid) return { status: 401, code: 'SIGN_ERROR', reason: 'mchid' };
    if (auth.serial_no !== merchantSerial) return { status: 401, code: 'SIGN_ERROR', reason: 'serial_no' };
    if (!auth.nonce_str) return { status: 401, code: 'SIGN_ERROR', reason: 'nonce_str' };
    if (!/^\d{1,12}$/.test(auth.timestamp ?? '') || Math.abs(Number(auth.timestamp) - Formatter.timestamp()) > 300)
      return { status: 401, code: 'SIGN_ERROR', reason: 'timestamp' };
    // Verified by the plugin's own code, over the string the rules define.
    if (!Rsa.verify(Formatter.request(req.method!, req.url!, auth.timestamp, auth.nonce_str, text), auth.signature ?? '', merchant.publicKey))
      return { status: 401, code: 'SIGN_ERROR', reason: 'signature' };
    const serial = req.headers['wechatpay-serial'];
    if (serial !== undefined && serial !== publicKeyId) return { status: 400, code: 'INVALID_REQUEST', reason: 'Wechatpay-Serial' };
    return null;
  }

  /** The transaction as the query answer (and a paid code payment's answer) tells it. */
  function transactionOf(t: Trade): Json {
    const paid = t.state === 'SUCCESS' || t.returned;
    return {
      ...(t.spAppid ? { sp_appid: t.spAppid } : {}),
      sp_mchid: spMchid,
      ...(t.subAppid ? { sub_appid: t.subAppid } : {}),
      sub_mchid: t.subMchid,
      out_trade_no: t.outTradeNo,
      trade_type: 'MICROPAY',
      trade_state: t.state,
      trade_state_desc: TRADE_STATE_DESC[t.state],
      ...(paid
        ? {
            transaction_id: t.transactionId,
            bank_type: 'OTHERS',
            success_time: t.successTime,
            ...(t.attach ? { attach: t.attach } : {}),
            payer: { sp_openid: t.openid },
            amount: { total: t.total, payer_total: t.total, currency: 'CNY', payer_currency: 'CNY' },
          }
        : { amount: { total: t.total, currency: 'CNY' } }),
    };
  }

  const pay = (t: Trade) => {
    t.state = 'SUCCESS';
    t.transactionId = `42000${digits(23)}`;
    t.successTime = rfc3339(Date.now());
  };

  /** The answer, or null for none ever (a `silent` code). */
  function codepay(b: Json | null): { status: number; body: Json } | null {
    const required = (ok: boolean, field: string) => {
      if (!ok) throw new Refusal(400, 'PARAM_ERROR', `${field} 参数缺失或格式错误`);
    };
    required(str(b, 'sp_mchid') === spMchid, 'sp_mchid');
    const subMchid = str(b, 'sub_mchid');
    required(!!subMchid, 'sub_mchid');
    const description = str(b, 'description') ?? '';
    required(description.length > 0 && Buffer.byteLength(description) <= 127, 'description');
    const outTradeNo = str(b, 'out_trade_no') ?? '';
    required(/^[0-9A-Za-z_*-]{6,32}$/.test(outTradeNo), 'out_trade_no');
    const authCode = str(obj(b, 'payer'), 'auth_code');
    required(!!authCode, 'payer.auth_code');
    const amount = obj(b, 'amount');
    const total = amount?.total;
    required(Number.isSafeInteger(total) && (total as number) > 0, 'amount.total');
    required(amount?.currency === undefined || amount.currency === 'CNY', 'amount.currency');
    const scene = obj(b, 'scene_info');
    required(!!scene && !!obj(scene, 'store_info'), 'scene_info.store_info');
    required(scene!.device_id === undefined || (typeof scene!.device_id === 'string' && scene!.device_id.length <= 32), 'scene_info.device_id');
    const appid = str(b, 'sp_appid');
    if (appid !== undefined && appid !== spAppid) throw new Refusal(400, 'APPID_MCHID_NOT_MATCH', 'sp_appid 与 sp_mchid 不匹配');
    if (!subMerchants.has(subMchid!)) throw new Refusal(403, 'NO_AUTH', '特约商户与服务商无受理关系');

    const before = trades.get(outTradeNo);
    if (before && (before.authCode !== authCode || before.subMchid !== subMchid || before.total !== total))
      throw new Refusal(400, 'OUT_TRADE_NO_USED', '商户订单号重复');
    if (!before) {
      const code = codes.get(authCode!);
      if (!code || code.used) throw new Refusal(400, 'AUTH_CODE_INVALID', '付款码无效，请提示用户刷新付款码后重新支付');
      code.used = true;
      const t: Trade = {
        spAppid: appid,
        subAppid: str(b, 'sub_appid'),
        subMchid: subMchid!,
        outTradeNo,
        attach: str(b, 'attach'),
        total: total as number,
        authCode: authCode!,
        state: code.behaviour === 'balance' ? 'PAYERROR' : 'USERPAYING',
        openid: `o${randomBytes(14).toString('base64url')}`,
        returned: false,
      };
      trades.set(outTradeNo, t);
      if (code.behaviour === 'pay' || code.behaviour === 'silent') pay(t);
      // Taken, and no answer ever comes: only a reverse (or a query) can tell.
      if (code.behaviour === 'silent') return null;
    }
    const t = trades.get(outTradeNo)!;
    if (t.state === 'PAYERROR') throw new Refusal(403, 'NOT_ENOUGH', '用户账号余额不足，请用户充值或更换支付卡后再支付');
    if (t.state === 'USERPAYING')
      return { status: 202, body: { sp_mchid: spMchid, sub_mchid: t.subMchid, out_trade_no: t.outTradeNo, trade_state: 'USERPAYING' } };
    if (t.state === 'REVOKED') throw new Refusal(400, 'ORDER_REVERSED', '订单已撤销');
    return { status: 200, body: transactionOf(t) };
  }

  /** The trade `outTradeNo` of `subMchid`, or 404. */
  function tradeOf(outTradeNo: string, subMchid: string | undefined): Trade {
    const t = trades.get(outTradeNo);
    if (!t || t.subMchid !== subMchid) throw new Refusal(404, 'ORDER_NOT_EXIST', '订单不存在');
    return t;
  }

  function query(outTradeNo: string, q: URLSearchParams): { status: number; body: Json } {
    if (q.get('sp_mchid') !== spMchid || !q.get('sub_mchid')) throw new Refusal(400, 'PARAM_ERROR', 'sp_mchid 与 sub_mchid 为必填参数');
    return { status: 200, body: transactionOf(tradeOf(outTradeNo, q.get('sub_mchid')!)) };
  }

  function reverse(outTradeNo: string, b: Json | null): { status: number; body: Json } {
    if (str(b, 'sp_mchid') !== spMchid || !str(b, 'sub_mchid')) throw new Refusal(400, 'PARAM_ERROR', 'sp_mchid 与 sub_mchid 为必填参数');
    const t = tradeOf(outTradeNo, str(b, 'sub_mchid'));
    if (t.state === 'SUCCESS') t.returned = true;
    t.state = 'REVOKED';
    return {
      status: 200,
      body: {
        ...(t.spAppid ? { sp_appid: t.spAppid } : {}),
        sp_mchid: spMchid,
        ...(t.subAppid ? { sub_appid: t.subAppid } : {}),
        sub_mchid: t.subMchid,
        out_trade_no: t.outTradeNo,
      },
    };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const broken = ruleBroken(req, text);
      if (broken) {
        refused.push({ reason: broken.reason, method: req.method!, url: req.url! });
        return answer(res, broken.status, { code: broken.code, message: `${broken.reason} 不符合接口规则` });
      }
      const url = new URL(req.url!, 'http://platform');
      let body: Json | null = null;
      try {
        body = text ? (JSON.parse(text) as Json) : null;
        if (text && (!body || typeof body !== 'object' || Array.isArray(body))) throw new Error('not an object');
      } catch {
        return answer(res, 400, { code: 'PARAM_ERROR', message: '请求体不是 JSON 对象' });
      }
      const byNo = /^\/v3\/pay\/partner\/transactions\/out-trade-no\/([^/]+)(\/reverse)?$/.exec(url.pathname);
      let route: (() => { status: number; body: Json } | null) | undefined;
      if (req.method === 'POST' && url.pathname === '/v3/pay/partner/transactions/codepay') route = () => codepay(body);
      else if (byNo && req.method === 'GET' && !byNo[2]) route = () => query(decodeURIComponent(byNo[1]), url.searchParams);
      else if (byNo && req.method === 'POST' && byNo[2]) route = () => reverse(decodeURIComponent(byNo[1]), body);
      if (!route) {
        unserved.push({ method: req.method!, url: req.url! });
        return answer(res, 404, { code: 'NOT_FOUND', message: '无效的请求地址' });
      }
      calls.push({ method: req.method!, path: url.pathname, query: Object.fromEntries(url.searchParams), body });
      try {
        const out = route();
        if (out) answer(res, out.status, out.body);
      } catch (e) {
        if (!(e instanceof Refusal)) throw e;
        answer(res, e.status, { code: e.code, message: e.message });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    spMchid,
    spAppid,
    /** The kit's settings for this platform, as a merchant's account gives them (public-key mode). */
    settings: {
      PAY_GATEWAY_URL: url,
      PAY_SP_APPID: spAppid,
      PAY_SP_MCH_ID: spMchid,
      PAY_SP_PRIVATE_KEY: pem(merchant.privateKey),
      PAY_SP_CERT_SERIAL: merchantSerial,
      PAY_V3_KEY: apiV3Key,
      PAY_PLATFORM_PUBLIC_KEY: pem(platform.publicKey),
      PAY_PLATFORM_PUBLIC_KEY_ID: publicKeyId,
    },
    /** The merchant's API key and certificate serial, for a client other than the kit's. */
    merchant: { privateKeyPem: pem(merchant.privateKey), serial: merchantSerial },
    /** The platform public key and its id, as a merchant's client trusts them. */
    platformKey: { id: publicKeyId, publicKeyPem: pem(platform.publicKey) },
    calls,
    refused,
    unserved,
    /** The service provider takes on a sub-merchant (`sub_mchid`). */
    addSubMerchant: (subMchid: string) => void subMerchants.add(subMchid),
    /** A payer's payment code as the wallet shows it (18 digits starting 10–15); `behaviour` says how its payment goes. */
    paymentCode(behaviour: CodeBehaviour): string {
      const code = `13${digits(16)}`;
      codes.set(code, { behaviour, used: false });
      return code;
    },
    /** The payer confirms on the phone the payment of `authCode` that waits for it. */
    confirm(authCode: string): void {
      const t = [...trades.values()].find((x) => x.authCode === authCode && x.state === 'USERPAYING');
      if (!t) throw new Error('no payment of this code waits for the payer');
      pay(t);
    },
    /** What the platform holds of a trade: its state, and whether the payer's money was given back. */
    trade: (outTradeNo: string) => {
      const t = trades.get(outTradeNo);
      return t && { state: t.state, returned: t.returned, transactionId: t.transactionId };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type V3Platform = Awaited<ReturnType<typeof startV3Platform>>;
