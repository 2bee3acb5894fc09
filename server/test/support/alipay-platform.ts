/**
 * A minimal Alipay open platform gateway for tests that referee the kit's Alipay protocol. It
 * shares no code with the kit (nothing from server/src, the sandbox or @kit/shared): only
 * node:crypto, node:http and the official `alipay-sdk`, whose own code checks what the kit signs
 * and what this platform signs, so that a mistake made the same way on both sides cannot pass.
 *
 * It follows Alipay's published rules for the gateway (protocol 1.0, RSA2):
 * - a request's parameters (URL and form body together) are signed `SHA256withRSA` over
 *   `k=v&…` of every non-empty parameter but `sign`, sorted by name; `app_id`, `charset`
 *   (utf-8), `version` (1.0), `sign_type` (RSA2), `timestamp` (`yyyy-MM-dd HH:mm:ss`, China time,
 *   within minutes of now), `biz_content` (JSON) and the merchant's `app_auth_token` are checked;
 * - answers are `{"<method>_response":{…},"sign":"…"}`, signed over the node's exact text, with
 *   `/` escaped as `\/` as Alipay writes it;
 * - in certificate mode, every request carries `app_cert_sn` (the application certificate's) and
 *   `alipay_root_cert_sn` (the root's), and answers name the signing certificate in
 *   `alipay_cert_sn`; the SNs are the SDK's own computation;
 * - trade notifications are form POSTs to the request's `notify_url`, signed over the sorted
 *   fields without `sign` and `sign_type`, and taken when answered with the body `success`;
 * - the payer's payment code (当面付条码支付), `alipay.trade.pay` with `scene: bar_code`, `auth_code`
 *   (16–24 digits starting 25–30), `out_trade_no`, `total_amount` and `subject`: 10000 with the
 *   trade (`trade_no`, `gmt_payment`…) when paid at once; 10003 (`order success pay inprocess`) with
 *   the trade while the payer confirms on the phone, which `alipay.trade.query` then shows
 *   `WAIT_BUYER_PAY` until they do and `TRADE_SUCCESS` after; 40004 for a refused code, with its
 *   `sub_code` (`ACQ.PAYMENT_AUTH_CODE_INVALID` for an unknown or used code: a code pays once,
 *   `ACQ.BUYER_BALANCE_NOT_ENOUGH`), no trade made. No notification is sent for a code payment:
 *   the kit learns a confirmed one by its query, as the face-to-face guide has the cashier do;
 * - `alipay.trade.cancel` (统一收单交易撤销) undoes a trade whatever its state: an unpaid one is
 *   closed (`action: close`), a paid one's money goes back to the payer (`action: refund`,
 *   `gmt_refund_pay`), and the trade ends `TRADE_CLOSED`; an unknown `out_trade_no` is answered
 *   10000 without `action`; `retry_flag` says whether to send the cancel again (`Y` while Alipay is
 *   busy: nothing was done).
 */
import { execFileSync } from 'node:child_process';
import { createSign, generateKeyPairSync, randomInt, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { AlipaySdk } from 'alipay-sdk';

export interface PlatformCall {
  method: string;
  /** Every parameter of the request, URL and body. */
  params: Record<string, string>;
  biz: Record<string, unknown>;
}

interface Trade {
  outTradeNo: string;
  appAuthToken: string;
  totalAmount: string;
  subject: string;
  /** The code payers scan (precreate); a payment code's trade has none. */
  qrCode?: string;
  /** The payer's payment code the trade was charged with (`alipay.trade.pay`). */
  authCode?: string;
  /** What `alipay.trade.cancel` did to it. */
  cancelled?: 'close' | 'refund';
  notifyUrl?: string;
  /** Null until a payer scans the code: Alipay has no trade before. */
  status: null | 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED';
  tradeNo?: string;
  gmtPayment?: string;
  refunds: Map<string, { amount: string; at: string }>;
}

const pkcs8 = (k: KeyObject) => k.export({ format: 'pem', type: 'pkcs8' }) as string;
const spki = (k: KeyObject) => k.export({ format: 'pem', type: 'spki' }) as string;

/** `yyyy-MM-dd HH:mm:ss` in China Standard Time (UTC+8, no daylight saving). */
export const chinaTime = (ms: number): string => new Date(ms + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
const parseChinaTime = (text: string): number => Date.parse(`${text.replace(' ', 'T')}+08:00`);

/** Alipay's signing string: the non-empty fields but the excluded ones, sorted, `k=v` joined with `&`. */
const signingString = (fields: Record<string, string>, exclude: readonly string[]): string =>
  Object.keys(fields)
    .filter((k) => !exclude.includes(k) && fields[k] !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');

const rsa2 = (content: string, key: KeyObject): string => createSign('RSA-SHA256').update(content, 'utf8').sign(key, 'base64');

/** How a payment code's payment goes: paid at once, confirmed on the phone (`confirm`), refused for the balance, or taken and never answered (`silent`). */
export type CodeBehaviour = 'pay' | 'confirm' | 'balance' | 'silent';

const tradeNoOf = (ms: number) => `${chinaTime(ms).slice(0, 10).replace(/-/g, '')}22001${String(randomInt(1e9)).padStart(9, '0')}0000`;

export interface AlipayCertificates {
  /** The application's public key certificate (`appCertPublicKey_<appid>.crt`). */
  appCert: string;
  /** Alipay's public key certificate (`alipayCertPublicKey_RSA2.crt`). */
  alipayCert: string;
  /** Alipay's root certificate (`alipayRootCert.crt`). */
  rootCert: string;
}

/** The certificates Alipay's open platform issues, made with the openssl CLI: a root, and the two keys' certificates under it. */
function issueCertificates(app: KeyObject, alipay: KeyObject): AlipayCertificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alipay-platform-'));
  try {
    const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    writeFileSync(path.join(dir, 'app.key'), pkcs8(app));
    writeFileSync(path.join(dir, 'alipay.key'), pkcs8(alipay));
    const root = '/C=CN/O=Ant Financial/OU=Certification Authority/CN=Ant Financial Certification Authority R1';
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'root.key', '-out', 'root.crt', '-days', '3650', '-sha256', '-subj', root);
    const issue = (name: string, subject: string, serial: string) => {
      openssl('req', '-new', '-key', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
      openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'root.crt',
        '-CAkey',
        'root.key',
        '-set_serial',
        serial,
        '-days',
        '365',
        '-sha256',
        '-out',
        `${name}.crt`,
      );
      return readFileSync(path.join(dir, `${name}.crt`), 'utf8');
    };
    return {
      appCert: issue('app', '/C=CN/O=Corner Shop Ltd/OU=Alipay/CN=2021004100000001', `0x${randomInt(1e9).toString(16)}01`),
      alipayCert: issue('alipay', '/C=CN/O=Ant Financial/OU=Alipay/CN=Alipay RSA2', `0x${randomInt(1e9).toString(16)}02`),
      rootCert: readFileSync(path.join(dir, 'root.crt'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startAlipayPlatform(opts: { appId?: string; clockSkewMs?: number; certificateMode?: boolean } = {}) {
  const appId = opts.appId ?? '2021004100000001';
  // The application's keys (made by the merchant's developer; the platform is given only the public key) and Alipay's.
  const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alipay = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const impostor = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const certificates = opts.certificateMode ? issueCertificates(app.privateKey, alipay.privateKey) : undefined;
  // The SNs as the official SDK computes them from the certificates.
  const sns = certificates
    ? (({ appCertSn, alipayCertSn, alipayRootCertSn }) => ({ appCertSn: appCertSn!, alipayCertSn: alipayCertSn!, alipayRootCertSn: alipayRootCertSn! }))(
        new AlipaySdk({
          appId,
          privateKey: pkcs8(app.privateKey),
          keyType: 'PKCS8',
          appCertContent: certificates.appCert,
          alipayPublicCertContent: certificates.alipayCert,
          alipayRootCertContent: certificates.rootCert,
        }).config,
      )
    : undefined;

  // The SDK as the platform sees the application: its `rsaCheck` verifies requests with the application's public key.
  const requestChecker = new AlipaySdk({ appId, privateKey: pkcs8(alipay.privateKey), keyType: 'PKCS8', alipayPublicKey: spki(app.publicKey) });
  // The SDK as an application sees Alipay: what this platform signs must pass its `checkResponseSign` and `checkNotifySignV2`.
  const sdkClient = new AlipaySdk({ appId, privateKey: pkcs8(app.privateKey), keyType: 'PKCS8', alipayPublicKey: spki(alipay.publicKey) });

  const calls: PlatformCall[] = [];
  /** Requests refused before any method ran (signature, application, time…), with why. */
  const refused: { reason: string; params: Record<string, string> }[] = [];
  const tokens = new Set<string>();
  const trades = new Map<string, Trade>();
  /** Answers signed with a key that is not Alipay's, while set. */
  let forgeAnswers = false;
  /** While false, `alipay.trade.refund` is answered `ACQ.SYSTEM_ERROR` and nothing is refunded. */
  let takeRefunds = true;
  /** The payers' payment codes Alipay issued, each paying once. */
  const codes = new Map<string, { behaviour: CodeBehaviour; used: boolean }>();
  /** Cancels to answer `retry_flag: "Y"` (Alipay busy), doing nothing. */
  let busyCancels = 0;

  const answer = (res: http.ServerResponse, method: string, node: Record<string, unknown>, signed = true) => {
    const key = `${method.replace(/\./g, '_')}_response`;
    const nodeText = JSON.stringify(node).replace(/\//g, '\\/');
    let raw = `{"${key}":${nodeText}`;
    if (signed && sns) raw += `,"alipay_cert_sn":"${sns.alipayCertSn}"`;
    if (signed) {
      const sign = rsa2(nodeText, forgeAnswers ? impostor : alipay.privateKey);
      raw += `,"sign":"${sign}"`;
      // The official SDK, as an application, accepts the answer (or, forged, refuses it).
      let sdkAccepts = true;
      try {
        sdkClient.checkResponseSign(`${raw}}`, key, sign, 'platform');
      } catch {
        sdkAccepts = false;
      }
      if (sdkAccepts === forgeAnswers) throw new Error(`alipay-sdk ${sdkAccepts ? 'accepts a forged' : 'refuses a genuine'} answer`);
    }
    res.writeHead(200, { 'content-type': 'text/html;charset=utf-8' });
    res.end(`${raw}}`);
  };
  const fail = (code: string, msg: string, subCode: string, subMsg: string) => ({ code, msg, sub_code: subCode, sub_msg: subMsg });
  const bizError = (subCode: string, subMsg: string) => fail('40004', 'Business Failed', subCode, subMsg);

  const handle = (res: http.ServerResponse, params: Record<string, string>) => {
    const method = params.method ?? '';
    const refuse = (reason: string, node: Record<string, unknown>, signed = true) => {
      refused.push({ reason, params });
      answer(res, method || 'error', node, signed);
    };
    if (params.app_id !== appId) return refuse('app_id', fail('40002', 'Invalid Arguments', 'isv.invalid-app-id', '无效的AppID参数'), false);
    if (params.sign_type !== 'RSA2') return refuse('sign_type', fail('40002', 'Invalid Arguments', 'isv.invalid-signature-type', '无效的签名类型'), false);
    // Verified by the SDK's own code, over the string Alipay's rules define.
    if (!params.sign || !requestChecker.rsaCheck(signingString(params, ['sign']), params.sign, 'RSA2'))
      return refuse('sign', fail('40002', 'Invalid Arguments', 'isv.invalid-signature', '验签出错'), false);
    if (sns && params.app_cert_sn !== sns.appCertSn)
      return refuse('app_cert_sn', fail('40002', 'Invalid Arguments', 'isv.app-cert-sn-mismatch', '应用公钥证书序列号不匹配'), false);
    if (sns && params.alipay_root_cert_sn !== sns.alipayRootCertSn)
      return refuse('alipay_root_cert_sn', fail('40002', 'Invalid Arguments', 'isv.alipay-root-cert-sn-mismatch', '支付宝根证书序列号不匹配'), false);
    if (params.charset !== 'utf-8') return refuse('charset', fail('40002', 'Invalid Arguments', 'isv.invalid-charset', '字符集错误'));
    if (params.version !== '1.0') return refuse('version', fail('40002', 'Invalid Arguments', 'isv.invalid-version', '版本号错误'));
    if (params.format !== undefined && params.format !== 'JSON')
      return refuse('format', fail('40002', 'Invalid Arguments', 'isv.invalid-format', '无效的数据格式'));
    const ts = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(params.timestamp ?? '') ? parseChinaTime(params.timestamp) : NaN;
    if (!(Math.abs(ts - (Date.now() + (opts.clockSkewMs ?? 0))) < 10 * 60_000))
      return refuse('timestamp', fail('40002', 'Invalid Arguments', 'isv.invalid-timestamp', '非法的时间戳参数'));
    if (!tokens.has(params.app_auth_token ?? ''))
      return refuse('app_auth_token', fail('20001', 'Insufficient Token Permissions', 'aop.invalid-app-auth-token', '无效的应用授权令牌'));
    let biz: Record<string, unknown>;
    try {
      biz = JSON.parse(params.biz_content ?? '') as Record<string, unknown>;
      if (!biz || typeof biz !== 'object' || Array.isArray(biz)) throw new Error('not an object');
    } catch {
      return refuse('biz_content', fail('40002', 'Invalid Arguments', 'isv.invalid-biz-content', 'biz_content 格式错误'));
    }
    calls.push({ method, params, biz });
    const s = (k: string) => (typeof biz[k] === 'string' ? (biz[k] as string) : '');
    const trade = trades.get(s('out_trade_no'));
    const mine = trade && trade.appAuthToken === params.app_auth_token ? trade : undefined;
    const now = chinaTime(Date.now());
    switch (method) {
      case 'alipay.trade.precreate': {
        if (!/^[A-Za-z0-9_]{1,64}$/.test(s('out_trade_no')) || !/^\d+\.\d{2}$/.test(s('total_amount')) || !s('subject'))
          return answer(res, method, fail('40002', 'Invalid Arguments', 'isv.missing-required-arguments', '缺少必选参数'));
        if (trade && (trade.appAuthToken !== params.app_auth_token || trade.totalAmount !== s('total_amount')))
          return answer(res, method, bizError('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改'));
        const t = trade ?? {
          outTradeNo: s('out_trade_no'),
          appAuthToken: params.app_auth_token,
          totalAmount: s('total_amount'),
          subject: s('subject'),
          qrCode: `https://qr.alipay.com/bax0${String(randomInt(1e9)).padStart(9, '0')}`,
          notifyUrl: params.notify_url,
          status: null,
          refunds: new Map(),
        };
        trades.set(t.outTradeNo, t);
        return answer(res, method, { code: '10000', msg: 'Success', out_trade_no: t.outTradeNo, qr_code: t.qrCode });
      }
      case 'alipay.trade.pay': {
        if (!/^[A-Za-z0-9_]{1,64}$/.test(s('out_trade_no')) || !/^\d+\.\d{2}$/.test(s('total_amount')) || !s('subject') || !s('auth_code') || !s('scene'))
          return answer(res, method, fail('40002', 'Invalid Arguments', 'isv.missing-required-arguments', '缺少必选参数'));
        if (s('scene') !== 'bar_code') return answer(res, method, bizError('ACQ.INVALID_PARAMETER', '参数无效'));
        if (trade) {
          if (trade.appAuthToken !== params.app_auth_token || trade.authCode !== s('auth_code') || trade.totalAmount !== s('total_amount'))
            return answer(res, method, bizError('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改'));
          if (trade.status === 'TRADE_SUCCESS') return answer(res, method, bizError('ACQ.TRADE_HAS_SUCCESS', '交易已被支付'));
          if (trade.status === 'TRADE_CLOSED') return answer(res, method, bizError('ACQ.TRADE_HAS_CLOSE', '交易已经关闭'));
          return answer(res, method, {
            code: '10003',
            msg: 'order success pay inprocess',
            trade_no: trade.tradeNo,
            out_trade_no: trade.outTradeNo,
            total_amount: trade.totalAmount,
          });
        }
        const code = codes.get(s('auth_code'));
        if (!code || code.used || !/^(2[5-9]|30)\d{14,22}$/.test(s('auth_code')))
          return answer(res, method, bizError('ACQ.PAYMENT_AUTH_CODE_INVALID', '支付失败，获取顾客账户信息失败，请顾客刷新付款码后重新收款'));
        code.used = true;
        if (code.behaviour === 'balance') return answer(res, method, bizError('ACQ.BUYER_BALANCE_NOT_ENOUGH', '买家余额不足'));
        const paidNow = code.behaviour !== 'confirm';
        const t: Trade = {
          outTradeNo: s('out_trade_no'),
          appAuthToken: params.app_auth_token,
          totalAmount: s('total_amount'),
          subject: s('subject'),
          authCode: s('auth_code'),
          notifyUrl: params.notify_url,
          status: paidNow ? 'TRADE_SUCCESS' : 'WAIT_BUYER_PAY',
          tradeNo: tradeNoOf(Date.now()),
          ...(paidNow ? { gmtPayment: now } : {}),
          refunds: new Map(),
        };
        trades.set(t.outTradeNo, t);
        // Taken, and no answer ever comes: only a cancel (or a query) can tell.
        if (code.behaviour === 'silent') return;
        const known = { trade_no: t.tradeNo, out_trade_no: t.outTradeNo, buyer_logon_id: '159****5620', total_amount: t.totalAmount };
        if (!paidNow) return answer(res, method, { code: '10003', msg: 'order success pay inprocess', ...known });
        return answer(res, method, {
          code: '10000',
          msg: 'Success',
          ...known,
          receipt_amount: t.totalAmount,
          buyer_pay_amount: t.totalAmount,
          gmt_payment: t.gmtPayment,
          fund_bill_list: [{ fund_channel: 'ALIPAYACCOUNT', amount: t.totalAmount }],
          buyer_open_id: '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5',
        });
      }
      case 'alipay.trade.cancel': {
        if (!s('out_trade_no') && !s('trade_no'))
          return answer(res, method, fail('40002', 'Invalid Arguments', 'isv.missing-required-arguments', '缺少必选参数'));
        const ids = { out_trade_no: s('out_trade_no') };
        if (busyCancels > 0) {
          busyCancels--;
          return answer(res, method, { code: '10000', msg: 'Success', ...ids, retry_flag: 'Y' });
        }
        // No trade: nothing to undo, and no `action` (未查询到交易).
        if (!mine || mine.status === null) return answer(res, method, { code: '10000', msg: 'Success', ...ids, retry_flag: 'N' });
        if (!mine.cancelled) {
          if (mine.status === 'TRADE_SUCCESS') {
            mine.refunds.set(`cancel-${mine.outTradeNo}`, { amount: mine.totalAmount, at: now });
            mine.cancelled = 'refund';
          } else if (mine.status === 'WAIT_BUYER_PAY') mine.cancelled = 'close';
          else return answer(res, method, bizError('ACQ.TRADE_STATUS_ERROR', '交易状态不合法'));
          mine.status = 'TRADE_CLOSED';
        }
        return answer(res, method, {
          code: '10000',
          msg: 'Success',
          trade_no: mine.tradeNo,
          ...ids,
          retry_flag: 'N',
          action: mine.cancelled,
          ...(mine.cancelled === 'refund' ? { gmt_refund_pay: mine.refunds.get(`cancel-${mine.outTradeNo}`)!.at } : {}),
        });
      }
      case 'alipay.trade.query':
        if (!mine || mine.status === null) return answer(res, method, bizError('ACQ.TRADE_NOT_EXIST', '交易不存在'));
        return answer(res, method, {
          code: '10000',
          msg: 'Success',
          trade_no: mine.tradeNo,
          out_trade_no: mine.outTradeNo,
          trade_status: mine.status,
          total_amount: mine.totalAmount,
          ...(mine.gmtPayment ? { send_pay_date: mine.gmtPayment } : {}),
        });
      case 'alipay.trade.close':
        if (!mine || mine.status === null) return answer(res, method, bizError('ACQ.TRADE_NOT_EXIST', '交易不存在'));
        if (mine.status !== 'WAIT_BUYER_PAY') return answer(res, method, bizError('ACQ.TRADE_STATUS_ERROR', '交易状态不合法'));
        mine.status = 'TRADE_CLOSED';
        return answer(res, method, { code: '10000', msg: 'Success', trade_no: mine.tradeNo, out_trade_no: mine.outTradeNo });
      case 'alipay.trade.refund': {
        if (!mine || mine.status === null) return answer(res, method, bizError('ACQ.TRADE_NOT_EXIST', '交易不存在'));
        if (!/^[A-Za-z0-9_]{1,64}$/.test(s('out_request_no')) || !/^\d+\.\d{2}$/.test(s('refund_amount')))
          return answer(res, method, fail('40002', 'Invalid Arguments', 'isv.missing-required-arguments', '缺少必选参数'));
        const again = mine.refunds.get(s('out_request_no'));
        if (!again && !takeRefunds) return answer(res, method, bizError('ACQ.SYSTEM_ERROR', '系统错误'));
        if (!again) {
          if (mine.status !== 'TRADE_SUCCESS') return answer(res, method, bizError('ACQ.TRADE_STATUS_ERROR', '交易状态不合法'));
          if (s('refund_amount') !== mine.totalAmount) return answer(res, method, bizError('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '退款金额超限'));
          mine.refunds.set(s('out_request_no'), { amount: s('refund_amount'), at: now });
          mine.status = 'TRADE_CLOSED';
        }
        return answer(res, method, {
          code: '10000',
          msg: 'Success',
          trade_no: mine.tradeNo,
          out_trade_no: mine.outTradeNo,
          fund_change: again ? 'N' : 'Y',
          refund_fee: mine.totalAmount,
          gmt_refund_pay: (again ?? mine.refunds.get(s('out_request_no'))!).at,
        });
      }
      case 'alipay.trade.fastpay.refund.query': {
        if (!mine || mine.status === null) return answer(res, method, bizError('ACQ.TRADE_NOT_EXIST', '交易不存在'));
        const r = mine.refunds.get(s('out_request_no'));
        const known = { code: '10000', msg: 'Success', trade_no: mine.tradeNo, out_trade_no: mine.outTradeNo, out_request_no: s('out_request_no') };
        // A refund Alipay has not received answers without refund_status.
        if (!r) return answer(res, method, known);
        return answer(res, method, {
          ...known,
          total_amount: mine.totalAmount,
          refund_amount: r.amount,
          refund_status: 'REFUND_SUCCESS',
          gmt_refund_pay: r.at,
        });
      }
      default:
        return answer(res, method, fail('40002', 'Invalid Arguments', 'isv.invalid-method', '不存在的方法名'), false);
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const url = new URL(req.url ?? '/', 'http://platform');
        if (req.method !== 'POST' || url.pathname !== '/gateway.do') {
          res.writeHead(404).end();
          return;
        }
        const params: Record<string, string> = {};
        const sources = [url.searchParams, new URLSearchParams(Buffer.concat(chunks).toString('utf8'))];
        for (const source of sources)
          for (const [k, v] of source) {
            if (k in params) throw new Error(`parameter ${k} given twice`);
            params[k] = v;
          }
        handle(res, params);
      } catch (e) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end((e as Error).message);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Posts a notification to `url` signed as Alipay does; the SDK, as an application, must accept it first. */
  const notify = async (url: string, fields: Record<string, string>) => {
    const form = { ...fields, sign_type: 'RSA2', sign: rsa2(signingString(fields, ['sign', 'sign_type']), alipay.privateKey) };
    if (!sdkClient.checkNotifySignV2(form)) throw new Error('alipay-sdk refuses the notification this platform signed');
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=utf-8' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, text: await res.text() };
  };

  return {
    appId,
    gatewayUrl: `${base}/gateway.do`,
    /** The application's private key, for the kit's ALIPAY_PRIVATE_KEY. */
    appPrivateKeyPem: pkcs8(app.privateKey),
    /** Alipay's public key, for the kit's ALIPAY_PUBLIC_KEY. */
    alipayPublicKeyPem: spki(alipay.publicKey),
    /** Certificate mode: the three certificates, for ALIPAY_APP_CERT, ALIPAY_PUBLIC_CERT and ALIPAY_ROOT_CERT. */
    certificates,
    /** Certificate mode: the SNs as alipay-sdk computes them. */
    sns,
    calls,
    refused,
    /** A merchant authorizes the application (third-party app authorization). */
    authorize: (token: string) => void tokens.add(token),
    forgeAnswers: (on: boolean) => void (forgeAnswers = on),
    /** Off: refunds are answered `ACQ.SYSTEM_ERROR` and not taken (their query then names them without `refund_status`). */
    takeRefunds: (on: boolean) => void (takeRefunds = on),
    /** A payer scans `qrCode` and pays; Alipay then notifies the trade's `notify_url`. */
    async pay(qrCode: string, buyerOpenId = '074a1CcTG1LelxKe4xQC0zgNdId0nxi95b5lsNpazWYoCo5') {
      const t = [...trades.values()].find((x) => x.qrCode === qrCode);
      if (!t || t.status !== null) throw new Error('no payable trade for this code');
      t.status = 'TRADE_SUCCESS';
      t.tradeNo = tradeNoOf(Date.now());
      t.gmtPayment = chinaTime(Date.now());
      const fields: Record<string, string> = {
        notify_time: chinaTime(Date.now()),
        notify_type: 'trade_status_sync',
        notify_id: `2026${String(randomInt(1e9)).padStart(9, '0')}`,
        app_id: appId,
        charset: 'utf-8',
        version: '1.0',
        trade_no: t.tradeNo,
        out_trade_no: t.outTradeNo,
        trade_status: 'TRADE_SUCCESS',
        total_amount: t.totalAmount,
        receipt_amount: t.totalAmount,
        buyer_pay_amount: t.totalAmount,
        subject: t.subject,
        gmt_create: t.gmtPayment,
        gmt_payment: t.gmtPayment,
        buyer_open_id: buyerOpenId,
      };
      if (!t.notifyUrl) throw new Error('the trade has no notify_url');
      return { tradeNo: t.tradeNo, notification: await notify(t.notifyUrl, fields) };
    },
    /** A payer's payment code as the Alipay app shows it (18 digits starting 28); `behaviour` says how its payment goes. */
    paymentCode(behaviour: CodeBehaviour): string {
      const code = `28${String(randomInt(1e8)).padStart(8, '0')}${String(randomInt(1e8)).padStart(8, '0')}`;
      codes.set(code, { behaviour, used: false });
      return code;
    },
    /** The payer confirms on the phone the payment of `authCode` that waits for it. */
    confirm(authCode: string): void {
      const t = [...trades.values()].find((x) => x.authCode === authCode && x.status === 'WAIT_BUYER_PAY');
      if (!t) throw new Error('no payment of this code waits for the payer');
      t.status = 'TRADE_SUCCESS';
      t.gmtPayment = chinaTime(Date.now());
    },
    /** The next `n` cancels are answered `retry_flag: "Y"`, with nothing done. */
    busyCancels: (n: number) => void (busyCancels = n),
    /** What Alipay holds of a trade: its status, what a cancel did, the money given back. */
    trade: (outTradeNo: string) => {
      const t = trades.get(outTradeNo);
      return t && { status: t.status, tradeNo: t.tradeNo, cancelled: t.cancelled, refunds: t.refunds.size };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type AlipayPlatform = Awaited<ReturnType<typeof startAlipayPlatform>>;
