/**
 * Alipay's side of the sandbox (the part of its stand-in, `../stand-ins/alipay.ts`): its gateway
 * (`POST /sandbox/alipay/gateway.do`) and bill links, its payers' routes, its faults, their
 * descriptions in the reference, its payment codes' confirmation and what `kit demo create` says
 * and sets up for it. Built while the sandbox plays Alipay (no `ALIPAY_*` key setting), with the
 * development keys the kit's Alipay provider is handed (`dev-keys.ts`, `../stand-ins/played.ts`).
 */
import { z } from 'zod';
import { html, text } from '@kit/server/plugins/kit';
import { SandboxError } from '../sandbox-error';
import { definePart } from '../stand-ins/part';
import { failAnswer, sandboxRouteDoc } from '../openapi/route-doc';
import { devAlipayMaterial } from './dev-keys';
import { ALIPAY_METHODS, SandboxAlipay } from './sandbox-alipay';
import { alipayBase, alipayBillDownload } from './sandbox-alipay-bill-route';
import { ALIPAY_NOT_PLAYED, ALIPAY_PAYER_PATHS, alipayPayerRoutes } from './sandbox-alipay-routes';

/** The demo shop's authorization of the kit's application at the Alipay stand-in (`kit demo create`). */
export const DEMO_ALIPAY_APP_AUTH_TOKEN = 'sandboxDemoAppAuthToken0001';

export const alipayPart = definePart({
  name: 'alipay',
  notPlayed: ALIPAY_NOT_PLAYED,
  // Alipay's gateway (sandbox-alipay.ts):
  faults: {
    /**
     * Alipay methods refused with the `sub_code` each names (`40004`, e.g. `ACQ.SYSTEM_ERROR`: call again with the same
     * parameters) without doing anything; an `alipay.trade.refund` so refused is received but not taken: its refund query names
     * the `out_request_no` without a `refund_status`.
     */
    alipayRefusals: z.record(z.enum(ALIPAY_METHODS), z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a sub_code: letters, digits, _ . -')).default({}),
    /**
     * How Alipay's refusals are answered: in the method's node and signed (as Alipay answers business errors), in the method's
     * node without `sign` (`unsigned`), or as the gateway's own unsigned `error_response`.
     */
    alipayErrors: z.enum(['signed', 'unsigned', 'error_response']).default('signed'),
    /** How many `alipay.trade.cancel` calls are answered `retry_flag: "Y"` (call again) without cancelling (a payment code's cancel, 7.4). */
    alipayCancelRetries: z.number().int().min(0).max(10).optional(),
  },
  routeDocs: [
    sandboxRouteDoc({
      method: 'post',
      path: '/sandbox/alipay/gateway.do',
      summary:
        "Alipay's open platform gateway (form parameters signed RSA2 by the kit's development key; answers signed by the sandbox's Alipay key), when no `ALIPAY_*` setting is set",
      body: text('application/x-www-form-urlencoded', 'The signed call: common parameters and `biz_content`'),
      answer: text('application/json', '`{"<method>_response": {…}, "sign": "…"}`, slashes written `\\/` as Alipay writes them'),
    }),
    sandboxRouteDoc({
      method: 'get',
      path: '/sandbox/alipay/gateway.do',
      summary:
        'Alipay: the cashier page a signed `alipay.trade.wap.pay` URL opens (the signature checked, a Pay button, back to `return_url`), in both languages',
      query: z.object({ sign: z.string() }).passthrough(),
      answer: html('The cashier page; a refusal page when the URL is not signed by the kit'),
    }),
    sandboxRouteDoc({
      method: 'post',
      path: '/sandbox/alipay/pay',
      summary:
        'Pay as an Alipay payer would what the kit gave, one of: a code (`qrCode`, alipayNative), a mini-program trade (`tradeNo`, alipayMini), an app order string (`orderStr`, alipayApp), a payment page URL (`wapUrl`, alipayWap); the signed notification is sent to `/pay-notify/alipay` before the answer',
      body: z.object({
        qrCode: z.string().optional(),
        tradeNo: z.string().optional(),
        orderStr: z.string().optional(),
        wapUrl: z.string().optional(),
        buyerOpenId: z.string().optional(),
      }),
      answer: z.union([
        z.object({
          status: z.literal('success'),
          tradeNo: z.string(),
          returnUrl: z.string().optional().openapi({ description: "A page URL's `return_url` with Alipay's signed return parameters" }),
        }),
        failAnswer,
      ]),
    }),
    sandboxRouteDoc({
      method: 'post',
      path: '/sandbox/alipay/auth-code',
      summary:
        "A login code for an Alipay payer (the stand-in for the mini-program's `my.getAuthCode`): the kit's `alipay.system.oauth.token` exchanges it once, within 5 minutes, for `buyerOpenId`",
      body: z.object({ buyerOpenId: z.string().optional().openapi({ description: 'Default `sandbox_alipay_buyer`' }) }),
      answer: z.union([z.object({ status: z.literal('success'), authCode: z.string(), buyerOpenId: z.string() }), failAnswer]),
    }),
    sandboxRouteDoc({
      method: 'get',
      path: '/sandbox/alipay/downloadBillFile.resource',
      summary:
        "Alipay: a merchant's trade bill, the link `alipay.data.dataservice.bill.downloadurl.query` handed out (it works for 30 seconds; docs/reconciliation.md)",
      query: z.object({ fileId: z.string() }).passthrough(),
      answer: text('application/zip', 'The bill: a ZIP of the detail and its summary, GBK CSV; 404 text once the link has expired'),
    }),
    sandboxRouteDoc({
      method: 'post',
      path: '/sandbox/alipay/revoke',
      summary: 'A merchant withdraws its authorization (`appAuthToken`): Alipay refuses its calls from then on (`aop.invalid-app-auth-token`)',
      body: z.object({ appAuthToken: z.string() }),
      answer: z.union([z.object({ status: z.literal('success') }), failAnswer]),
    }),
  ],
  payerPaths: [...ALIPAY_PAYER_PATHS, '/alipay/revoke'],

  create(config, { faults, clock }) {
    const dev = devAlipayMaterial(config.DATA_DIR);
    // Under the sandbox's faults (those with an Alipay meaning), duplicates and repeat schedule.
    return new SandboxAlipay({
      appId: dev.appId,
      miniAppId: dev.miniAppId,
      appPublicKey: dev.appPublicKey,
      keys: { privateKey: dev.alipayPrivateKey, publicKey: dev.alipayPublicKey },
      billFaults: faults,
      faults,
      duplicates: config.SANDBOX_DUPLICATE_NOTIFY,
      retrySchedule: config.SANDBOX_NOTIFY_SCHEDULE,
      clock,
    });
  },

  // Alipay's open platform gateway (form parameters in, signed JSON out), and its bills' links.
  platformRoutes(r, alipay, raw) {
    if (!alipay) return;
    r.post('/alipay/gateway.do', raw, (req, res) => {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const answer = alipay.gatewayRequest(query, body, alipayBase(req));
      // A call the faults say is lost is never answered: the caller's own time limit ends it.
      if (answer === null) return;
      res.type('application/json;charset=utf-8').send(answer);
    });
    r.get('/alipay/downloadBillFile.resource', alipayBillDownload(alipay));
  },

  // Alipay's payers: pay what the kit gave (a code, a mini-program trade, an app order string, a page URL), log in, the cashier page.
  payerRoutes(r, alipay, helpers) {
    const { cors, raw, json, payer } = helpers;
    alipayPayerRoutes(r, alipay, helpers);
    // A merchant withdraws its authorization of the kit's application: Alipay refuses its calls from then on.
    r.post(
      '/alipay/revoke',
      cors,
      raw,
      payer(async (req) => {
        if (!alipay) throw new SandboxError(404, ALIPAY_NOT_PLAYED);
        const { appAuthToken } = json(req);
        if (typeof appAuthToken !== 'string' || !appAuthToken) throw new SandboxError(400, 'appAuthToken is required');
        alipay.revoke(appAuthToken);
        return { status: 'success' };
      }),
    );
  },

  confirmCode: (alipay, code) => alipay.confirmCode(code),

  demo: {
    paySteps: (sandboxUrl) => [
      `     With Alipay: open the code's link in a browser whose user agent says AlipayClient and pay at the sandbox's Alipay cashier,`,
      `     or, for an Alipay code from alipayNative: curl -X POST ${sandboxUrl}/alipay/pay -H 'content-type: application/json' -d '{"qrCode":"<its qr_code>"}'`,
    ],
    // The demo shop's Alipay authorization: the stand-in takes any token until it is withdrawn (`/sandbox/alipay/revoke`).
    paymentParams: [{ paymentChannel: 'Alipay', params: { appAuthToken: DEMO_ALIPAY_APP_AUTH_TOKEN } }],
  },
});
