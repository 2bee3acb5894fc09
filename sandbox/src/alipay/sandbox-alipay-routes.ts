/**
 * The Alipay stand-in's routes for payers and people (docs/sandbox.md), mounted by the sandbox's
 * router beside its gateway (`POST /sandbox/alipay/gateway.do`):
 * - `POST /sandbox/alipay/pay`: pay as an Alipay payer would, whichever way the kit gave: a code
 *   (`qrCode`, alipayNative), a mini-program trade (`tradeNo`, alipayMini), an app order string
 *   (`orderStr`, alipayApp) or a payment page URL (`wapUrl`, alipayWap); the signed notification is
 *   sent before the answer.
 * - `POST /sandbox/alipay/auth-code`: a login code for a payer, the stand-in for the mini-program's
 *   `my.getAuthCode` (the kit exchanges it with `alipay.system.oauth.token`).
 * - `GET /sandbox/alipay/gateway.do?<signed wap parameters>`: the Alipay cashier page.
 */
import type { Router } from 'express';
import { methodNotAllowed, sendPage } from '@kit/server/plugins/kit';
import { SandboxError } from '../sandbox-error';
import type { PayerHelpers } from '../stand-ins/part';
import { alipayCashierPage, alipayRefusedPage } from './alipay-cashier-page';
import { SandboxAlipayRefusal, type SandboxAlipay } from './sandbox-alipay';

/** Why its routes answer 404 when the operator gave Alipay's settings. */
export const ALIPAY_NOT_PLAYED = 'the sandbox does not play Alipay here (ALIPAY_* settings are set)';
const notPlayed = () => new SandboxError(404, ALIPAY_NOT_PLAYED);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export const ALIPAY_PAYER_PATHS = ['/alipay/pay', '/alipay/auth-code'];

export function alipayPayerRoutes(r: Router, alipay: SandboxAlipay | undefined, { raw, cors, json, payer }: PayerHelpers): void {
  r.post(
    '/alipay/pay',
    cors,
    raw,
    payer(async (req) => {
      if (!alipay) throw notPlayed();
      const body = json(req);
      const buyer = text(body.buyerOpenId);
      const [qrCode, tradeNo, orderStr, wapUrl] = [text(body.qrCode), text(body.tradeNo) ?? text(body.tradeNO), text(body.orderStr), text(body.wapUrl)];
      if ([qrCode, tradeNo, orderStr, wapUrl].filter(Boolean).length !== 1)
        throw new SandboxError(400, 'one of qrCode (alipayNative), tradeNo (alipayMini), orderStr (alipayApp) or wapUrl (alipayWap) is required');
      try {
        if (qrCode) return { status: 'success', tradeNo: (await alipay.scanAndPay(qrCode, buyer ?? 'sandbox_alipay_buyer')).tradeNo };
        if (tradeNo) return { status: 'success', tradeNo: (await alipay.payTradeNo(tradeNo, buyer)).tradeNo };
        if (orderStr) return { status: 'success', tradeNo: (await alipay.payOrderString(orderStr, buyer ?? 'sandbox_alipay_buyer')).tradeNo };
        const trade = await alipay.payWapUrl(wapUrl!, buyer ?? 'sandbox_alipay_buyer');
        const returnUrl = new URL(wapUrl!).searchParams.get('return_url');
        return { status: 'success', tradeNo: trade.tradeNo, ...(returnUrl ? { returnUrl: alipay.wapReturnUrl(returnUrl, trade) } : {}) };
      } catch (e) {
        if (e instanceof TypeError) throw new SandboxError(400, e.message);
        throw new SandboxError(409, (e as Error).message);
      }
    }),
  );

  r.post(
    '/alipay/auth-code',
    cors,
    raw,
    payer(async (req) => {
      if (!alipay) throw notPlayed();
      const buyer = json(req).buyerOpenId;
      if (buyer !== undefined && (typeof buyer !== 'string' || !/^[0-9A-Za-z_-]{1,128}$/.test(buyer)))
        throw new SandboxError(400, 'buyerOpenId: letters, digits, "-" and "_", at most 128');
      return { status: 'success', ...alipay.issueAuthCode(buyer) };
    }),
  );

  r.get('/alipay/gateway.do', (req, res) => {
    if (!alipay) throw notPlayed();
    // `lang` is the page's, not one of the signed parameters.
    const query = new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');
    query.delete('lang');
    const params = Object.fromEntries(query);
    const signedUrl = `${req.protocol}://${req.get('host')}${req.baseUrl}${req.path}?${query.toString()}`;
    try {
      sendPage(res, alipayCashierPage(req, alipay.wapOrder(params), signedUrl));
    } catch (e) {
      if (!(e instanceof SandboxAlipayRefusal)) throw e;
      sendPage(res, alipayRefusedPage(req, e.subCode, e.message), 400);
    }
  });
  r.all('/alipay/gateway.do', methodNotAllowed(['GET', 'POST']));
}
