/**
 * The payment sandbox (development and tests only, SANDBOX_ENABLED): the platform's protocol
 * endpoints the service calls, and the payer side a person or a test uses to pay.
 */
import { z } from 'zod';
import { V2_PATHS } from '../protocol/v2-rules';
import type { RouteDoc } from '@kit/server/plugins/dev-plugin';
import { html, text, xml } from '@kit/server/plugins/kit';
import { faultsSchema } from '../sandbox-faults';
import { CODE_WALLETS, PARTS } from '../stand-ins';
import { failAnswer, sandboxRouteDoc } from './route-doc';

const sandbox = sandboxRouteDoc;
const fail = failAnswer;
const protocolXml = xml('Payment protocol v2 message (XML, signed with the service provider key)');

export const sandboxRoutes: RouteDoc[] = [
  ...(['', '/card'] as const).flatMap((prefix) =>
    Object.entries(V2_PATHS).map(([op, path]): RouteDoc =>
      sandbox({
        method: 'post',
        path: `/sandbox${prefix}${path}`,
        summary: `${prefix ? 'Card acquirer' : 'Social payment platform'}: ${op} (what PAY_GATEWAY_URL${prefix ? ' / CARD_GATEWAY_URL' : ''} points at outside production)`,
        body: protocolXml,
        answer: protocolXml,
      }),
    ),
  ),
  sandbox({
    method: 'post',
    path: '/sandbox/pay/downloadbill',
    summary: "Social payment platform: the trade bill of a day (protocol v2 downloadbill, the service provider's whole account; docs/reconciliation.md)",
    body: protocolXml,
    answer: text(
      'application/octet-stream',
      'The bill (CSV, GZIP with tar_type=GZIP, text/plain otherwise), or protocol XML saying why there is none (No Bill Exist, Bill Creating)',
    ),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/pay',
    summary: 'Pay a scan-code QR content (`codeUrl`) or a mini-program payment (`package`) as a payer would',
    body: z.object({ codeUrl: z.string().optional(), package: z.string().optional(), openId: z.string().optional() }).passthrough(),
    answer: z.union([z.object({ status: z.literal('success'), transactionId: z.string() }), fail]),
  }),
  // The routes of the stand-ins with platforms of their own (`stand-ins/part.ts`).
  ...PARTS.flatMap((p) => p.routeDocs ?? []),
  sandbox({
    method: 'post',
    path: '/sandbox/login',
    summary: 'A login code for a sandbox payer (the stand-in for the mini-program login)',
    body: z.object({ user: z.string().optional() }),
    answer: z.object({}).passthrough(),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/payment-code',
    summary: "A payer's payment code (7.4) of a wallet, whose payment goes the way `behaviour` says when the cashier scans it",
    description:
      '`pay` paid at once; `confirm` the payer confirms on the phone (by `/sandbox/payment-code/confirm`, or 10 s later); `never` never confirmed; `balance` refused, balance too low; `silent` the money is taken and no answer comes. A code is good once.',
    body: z.object({
      wallet: z.enum(CODE_WALLETS.map((w) => w.wallet) as [string, ...string[]]).optional(),
      behaviour: z.enum(['pay', 'confirm', 'never', 'balance', 'silent']).optional(),
    }),
    answer: z.union([z.object({ status: z.literal('success'), code: z.string(), wallet: z.string(), behaviour: z.string() }), fail]),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/payment-code/confirm',
    summary: 'The payer confirms a payment code payment on the phone: the payment waiting under the code is paid (409 when none waits)',
    body: z.object({ code: z.string() }),
    answer: z.union([z.object({ status: z.literal('success') }), fail]),
  }),
  sandbox({
    method: 'get',
    path: '/sandbox/payment-code.svg',
    summary: 'A payment code drawn as wallets draw it: a Code 128 barcode (SVG)',
    query: z.object({ code: z.string() }),
    answer: text('image/svg+xml', 'The barcode'),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/renotify',
    summary: "Send a paid order's payment notification again",
    body: z.object({ prepayId: z.string() }),
    answer: z.union([z.object({ status: z.literal('success') }), fail]),
  }),
  sandbox({
    method: 'get',
    path: '/sandbox/sns/jscode2session',
    summary: 'Login-code exchange (what MP_LOGIN_URL points at outside production)',
    query: z.object({ appid: z.string(), secret: z.string(), js_code: z.string(), grant_type: z.string() }),
    answer: z.object({ openid: z.string().optional(), session_key: z.string().optional(), errcode: z.number().optional(), errmsg: z.string().optional() }),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/cgi-bin/stable_token',
    summary: "The mini-program's access token (what MP_API_URL points at outside production; docs/sandbox.md)",
    body: z.object({ grant_type: z.literal('client_credential'), appid: z.string(), secret: z.string(), force_refresh: z.boolean().optional() }),
    answer: z.object({ access_token: z.string().optional(), expires_in: z.number().optional(), errcode: z.number().optional(), errmsg: z.string().optional() }),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/wxa/getwxacodeunlimit',
    summary: "A mini-program code for a scene: a PNG labelled as the sandbox's, of the payer page's link with the same scene",
    query: z.object({ access_token: z.string() }),
    body: z.object({
      scene: z.string(),
      page: z.string().optional(),
      check_path: z.boolean().optional(),
      env_version: z.enum(['release', 'trial', 'develop']).optional(),
      width: z.number().optional(),
    }),
    answer: text('image/png', 'The code, or `{errcode, errmsg}` as JSON (HTTP 200, as the platform answers)'),
  }),
  sandbox({
    method: 'get',
    path: '/sandbox/cashier',
    summary: 'The sandbox cashier page where a person pays a mini-program payment',
    query: z.object({ package: z.string(), return: z.string().optional(), lang: z.enum(['zh-CN', 'en']).optional() }),
    answer: html('The cashier page'),
  }),
  sandbox({
    method: 'get',
    path: '/sandbox/',
    summary: "The sandbox's page for a person: pay a code, set the faults (in the browser's language, or `?lang=`)",
    query: z.object({ lang: z.enum(['zh-CN', 'en']).optional() }),
    answer: html('The sandbox page'),
  }),
  sandbox({
    method: 'get',
    path: '/sandbox/faults',
    summary: 'How the sandbox platform misbehaves now (lost notifications, lost refund calls)',
    answer: z.object({ status: z.literal('success'), faults: faultsSchema }),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/faults',
    summary: 'Set how the sandbox platform misbehaves (replaces the whole set; `{}` resets it)',
    description:
      '`payNotifications: "drop"`: paid orders get no notification. `refunds: "hold"`: refund calls are never answered and not recorded. ' +
      '`refundNotifications: "drop"`: refunds are recorded and answered, but not notified. Kept in memory until changed or until the process restarts.',
    body: faultsSchema.partial(),
    answer: z.union([z.object({ status: z.literal('success'), faults: faultsSchema }), fail]),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/receiver',
    summary: 'The development receiver of merchant callbacks: answers `OK` and keeps what it got (`npm run kit -- demo create` points the demo shop at it)',
    description: 'Keeps the latest 200 callbacks in memory with the result of checking their signature (section 6); the console shows them.',
    query: z.object({ _appid: z.string(), _t: z.string(), _s: z.string() }).partial(),
    body: { contentType: 'application/json', schema: z.string().openapi({ description: 'A section 6 callback body' }) },
    answer: { contentType: 'text/plain', schema: z.literal('OK') },
  }),
  sandbox({
    method: 'get',
    path: '/sandbox/receiver',
    summary: 'What the development receiver got, newest first',
    answer: z.object({
      status: z.literal('success'),
      received: z.array(
        z.object({
          at: z.string(),
          url: z.string(),
          body: z.string(),
          signature: z.string().openapi({ description: '`ok`, or why the signature did not verify' }),
          prepayId: z.string().optional(),
          status: z.string().optional(),
          subMerchantId: z.string().optional(),
          merchantId: z.string().optional(),
        }),
      ),
    }),
  }),
  // The payer API answers CORS preflights (pages on other origins call it).
  ...[
    '/sandbox/pay',
    ...PARTS.flatMap((p) => p.payerPaths.map((path) => `/sandbox${path}`)),
    '/sandbox/login',
    '/sandbox/renotify',
    '/sandbox/payment-code',
    '/sandbox/payment-code/confirm',
    '/sandbox/sns/jscode2session',
    '/sandbox/faults',
  ].map((path): RouteDoc =>
    sandbox({
      method: 'options',
      path,
      summary: 'CORS preflight',
      answer: { contentType: 'text/plain', schema: z.string().openapi({ description: 'Empty (204)' }) },
    }),
  ),
];
