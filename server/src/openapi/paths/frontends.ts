/**
 * The routers behind the two front ends (`/pos/api/*`, `/mp/api/*`) and the pages themselves.
 * They hold the secrets the pages must not (app secret, mini-program secret) and call the
 * service's own API for them; merchants do not call them directly.
 */
import { z, type ZodTypeAny } from 'zod';
import {
  ORDER_STATUSES,
  PAGE_WAYS,
  PAYMENT_CHANNELS,
  WALLET_LOOKS,
  everyWalletName,
  orList,
  prepayDetailSchema,
  wayOf,
  type ErrorId,
  type WalletLooks,
  type WayDeclaration,
} from '@kit/shared';
import { MP_DEFAULT_WAY, MP_PAY_ALIASES, mpOrderParamsSchema, mpOrderQuerySchema, mpPayRequestMembers } from '@kit/shared/api/mp';
import {
  posBalanceQuerySchema,
  posCreateOrderSchema,
  posListOrdersSchema,
  posLoginSchema,
  posOrderIdSchema,
  posPayCodeSchema,
  posPointsCodeSchema,
  posPointsSessionSchema,
} from '@kit/shared/api/pos-schemas';
import { html, success, text, type RouteDoc } from '../describe';

const paymentChannel = z.enum(PAYMENT_CHANNELS).optional().openapi({ description: 'The wallet that paid (4.7 channel names), once paid' });
/** The POS's answers of 4.2: the detail as the service gave it, with the wallet that paid once paid. */
const detailWithChannel = prepayDetailSchema.extend({ paymentChannel });
/** The payer page's order: 4.2 with its number, and once paid the wallet that paid and any second payment refunded automatically. */
const mpOrder = detailWithChannel.extend({
  prepayId: z.string(),
  secondPayments: z
    .array(z.object({ paymentChannel: z.enum(PAYMENT_CHANNELS), amount: z.string(), refund: z.enum(['refunding', 'refunded', 'failed']) }))
    .optional()
    .openapi({ description: 'Payments made after the order was paid (docs/payments.md, "Paid once"), each refunded automatically' }),
});
const session = z.object({ merchantId: z.string(), displayName: z.string(), parentMerchantId: z.string().nullable() });
const order = z.object({
  prepayId: z.string(),
  amount: z.string(),
  merchantName: z.string(),
  status: z.enum(ORDER_STATUSES),
  createTime: z.string(),
  paymentTime: z.string().optional(),
  refundTime: z.string().optional(),
  paymentChannel,
  scene: z.string().openapi({ description: '`sm.pay?prepayid=<id>`' }),
  miniProgramCode: z.enum(['platform', 'link']).openapi({
    description:
      "What the mini-program tab shows (`POS_MP_CODE`): the platform's code (`/pos/api/orders/{prepayId}/mini-program-code`) or a plain QR code of `miniProgramLink`",
  }),
  miniProgramLink: z.string(),
  payerLink: z.string().openapi({
    description: "The code for any wallet, shown first: `<service>/p/<prepayId>` (each app's browser is answered its own way, `GET /p/{prepayId}`)",
  }),
  scannedWith: z
    .object({ miniProgram: z.string(), scanCode: z.string() })
    .openapi({ description: 'The wallet (its id) whose app scans the mini-program code, and the scan-code QR: the display names it under the code' }),
  codeUrl: z.string().nullable(),
  codeUrlError: z.string().optional(),
  codeUrlErrorId: z.string().optional(),
  development: z
    .object({ loopbackLink: z.boolean(), lanDisplayUrls: z.array(z.string()) })
    .optional()
    .openapi({
      description: 'Outside production: whether the payer link is a loopback address a phone cannot open, and this display at the network addresses',
    }),
});
const orderSummary = order.pick({ prepayId: true, amount: true, status: true, createTime: true, paymentTime: true, refundTime: true, paymentChannel: true });
const points = { balance: z.string(), tokenId: z.string(), tokenAppId: z.string(), userAppId: z.string(), userId: z.string() };
const pointsSession = z.object({
  handle: z.string(),
  uuid: z.string(),
  userId: z.string(),
  tokenId: z.string(),
  tokenAppId: z.string(),
  userAppId: z.string(),
  maxAmount: z.string(),
  expiresAt: z.number(),
});
const pointsCode = z.object({
  chainLink: z.string().nullable(),
  spent: z.boolean(),
  balance: z.string().nullable(),
  validForMs: z.number(),
  refreshEveryMs: z.number(),
});

const pos = (doc: Omit<RouteDoc, 'tag' | 'auth'> & { auth?: RouteDoc['auth'] }): RouteDoc => ({ tag: 'POS display router', auth: 'posCookie', ...doc });
const mp = (doc: Omit<RouteDoc, 'tag' | 'auth'>): RouteDoc => ({ tag: 'Mini-program router', auth: 'none', ...doc });

/** What can go wrong paying a way from the page: its login code (a mini-program's), the way not served, the order. */
const pageWayErrors = (w: WayDeclaration): ErrorId[] =>
  w.flow === 'wap'
    ? ['not_found']
    : w.flow === 'miniProgram'
      ? ['mp_login_failed', 'mp_login_unavailable', 'mp_not_configured', 'order_not_active']
      : ['mp_login_failed', 'channel_unavailable', 'not_found'];
/** The answer of a way paid from the page: its `args`. */
const pageWayAnswer = (ways: readonly WayDeclaration[]) =>
  success(1, { args: ways.length === 1 ? ways[0].args : z.union(ways.map((w) => w.args.openapi({ title: w.name })) as unknown as [ZodTypeAny, ZodTypeAny]) });
/** The wallets whose app's browser pays on the payer page, and the token of its user agent (`MicroMessenger/`). */
const BROWSERS = WALLET_LOOKS.filter((w) => w.payerBrowser);
const userAgentToken = (w: WalletLooks) => (w.payerBrowser?.source ?? '').replace(/\\b/g, '').replace(/\\/g, '');
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const COMES_BACK =
  "After paying (or on leaving the wallet's page) the payer comes back to `returnUrl`; the payment itself is known from 4.2 (`/mp/api/orders/{prepayId}`), never from the return.";
const NOT_SUCCESS = 'Anything but `success` (HTTP 200 with `status: "fail"`) means the order can no longer be paid this way: the page asks to scan again.';

export const frontendRoutes: RouteDoc[] = [
  pos({
    method: 'post',
    path: '/pos/api/login',
    summary: 'Cashier login with a sub-merchant id and password; sets the httpOnly login cookie',
    auth: 'none',
    body: posLoginSchema,
    answer: success(1, { session }),
    errors: ['login_failed', 'secure_connection_required', 'pos_not_sub_merchant'],
  }),
  pos({
    method: 'post',
    path: '/pos/api/logout',
    summary: "Ends the cashier's login (revokes its token, clears the cookie)",
    auth: 'none',
    answer: success(1, {}),
  }),
  pos({
    method: 'get',
    path: '/pos/api/session',
    summary: "Who is logged in: `session` null when nobody, `expired` when the cookie's login is gone",
    auth: 'none',
    answer: success(1, { session: session.nullable(), expired: z.boolean().optional() }),
  }),
  pos({
    method: 'post',
    path: '/pos/api/orders',
    summary: 'Create an order and its payment codes',
    body: posCreateOrderSchema,
    answer: success(1, { order }),
    errors: ['login_invalid', 'invalid_amount', 'pos_upstream_failed'],
  }),
  pos({
    method: 'get',
    path: '/pos/api/orders',
    summary: "Today's orders",
    query: posListOrdersSchema,
    answer: success(1, { orders: z.array(orderSummary) }),
    errors: ['login_invalid'],
  }),
  pos({
    method: 'get',
    path: '/pos/api/orders/:prepayId',
    summary: 'One order with its codes',
    params: posOrderIdSchema,
    answer: success(1, { order }),
    errors: ['login_invalid', 'not_found'],
  }),
  pos({
    method: 'get',
    path: '/pos/api/orders/:prepayId/mini-program-code',
    summary: "The order's mini-program code, as the platform drew it for `sm.pay?prepayid=<prepayId>`",
    description:
      "The image the platform's `getwxacodeunlimit` answered (through `MP_API_URL`; the sandbox's in development), with its content type; drawn once per order and kept, so a redraw does not call the platform again. Only the cashier's own orders; an order no longer `active` gets a code only if one was drawn while it was.",
    params: posOrderIdSchema,
    answer: text('image/jpeg', 'The code as the platform drew it (`image/jpeg` from the platform, `image/png` from the sandbox)'),
    errors: ['login_invalid', 'not_found', 'order_not_active', 'mp_code_failed', 'mp_code_unavailable', 'mp_not_configured', 'mp_scene_invalid'],
  }),
  pos({
    method: 'get',
    path: '/pos/api/orders/:prepayId/wait',
    summary: "The order's detail, held until it leaves `active` (4.2 waitForFinish=1 behind the router)",
    params: posOrderIdSchema,
    answer: detailWithChannel,
    errors: ['login_invalid', 'not_found'],
  }),
  pos({
    method: 'post',
    path: '/pos/api/orders/:prepayId/code',
    summary: "Charge the payer's payment code, scanned at the counter (7.4 `codePay` behind the router)",
    description:
      "`paid`, `waiting` (the payer confirms on the phone until `confirmUntil`), `refused` by the wallet (`reason`: `code` the code is used or expired, `payer` the payer cannot pay with it, `other`; `platformCode` the wallet's own), or `cancelled` (the wallet gave no outcome: the kit cancelled it, the payer is not charged).",
    params: posOrderIdSchema,
    body: posPayCodeSchema,
    answer: success(1, {
      payment: z.union([
        z.object({ result: z.enum(['paid', 'waiting']), channel: z.string(), confirmUntil: z.string().optional() }),
        z.object({ result: z.literal('refused'), reason: z.enum(['code', 'payer', 'other']), platformCode: z.string() }),
        z.object({ result: z.literal('cancelled') }),
      ]),
    }),
    errors: ['login_invalid', 'invalid_request', 'not_found', 'order_not_active', 'code_payment_waiting', 'channel_unavailable'],
  }),
  pos({
    method: 'post',
    path: '/pos/api/orders/:prepayId/refund',
    summary: 'Refund the order in full (4.6 behind the router)',
    params: posOrderIdSchema,
    answer: success(1, { detail: detailWithChannel }),
    errors: ['login_invalid', 'order_not_paid', 'order_already_refunded', 'refund_in_progress'],
  }),
  pos({
    method: 'get',
    path: '/pos/api/points/balance',
    summary: "A customer's points balance (4.12 behind the router)",
    query: posBalanceQuerySchema,
    answer: success(1, points),
    errors: ['login_invalid', 'point_type_not_found'],
  }),
  pos({
    method: 'post',
    path: '/pos/api/points/sessions',
    summary: 'Start showing deduction codes for a customer',
    body: posPointsSessionSchema,
    answer: success(1, { session: pointsSession, balance: z.string().nullable() }),
    errors: ['login_invalid', 'invalid_amount', 'point_type_not_found'],
  }),
  pos({
    method: 'post',
    path: '/pos/api/points/code',
    summary: 'A fresh deduction code of a points session (every 5 s)',
    body: posPointsCodeSchema,
    answer: success(1, { code: pointsCode }),
    errors: ['login_invalid', 'pos_points_session_invalid'],
  }),
  mp({
    method: 'get',
    path: '/mp/api/orders/:prepayId',
    summary: 'The order the payer scanned (4.2 behind the router; `wait=1` holds like waitForFinish=1)',
    params: mpOrderParamsSchema,
    query: mpOrderQuerySchema,
    answer: mpOrder,
    errors: ['not_found', 'mp_upstream_failed'],
  }),
  mp({
    method: 'post',
    path: '/mp/api/pay',
    summary: "Get the payment arguments of the way the page pays with, on the payer's behalf (the ways declare which: `socialPay`, 4.4, in the social app)",
    description:
      "`way` is one of the ways the payer page pays with; for a mini-program's way the page sends its login code (`code`: `wx.login`'s, `my.getAuthCode`'s), which the router exchanges for the payer's open id (a code is good once), " +
      `for a page in a wallet's browser where the wallet's payment page sends the payer back (\`returnUrl\`). ${COMES_BACK} ` +
      `Without \`way\`, \`${MP_DEFAULT_WAY}\` (\`{prepayId, code}\`, as before \`way\`). An unknown \`way\` is refused naming \`way\`. ${NOT_SUCCESS}`,
    body: z.union(mpPayRequestMembers().map((m, i) => m.openapi({ title: PAGE_WAYS[i].name })) as unknown as [ZodTypeAny, ZodTypeAny]),
    answer: pageWayAnswer(PAGE_WAYS),
    errors: [...new Set(PAGE_WAYS.flatMap(pageWayErrors))],
  }),
  // A way's own route from before `/mp/api/pay` (its declaration's `page.alias`).
  ...MP_PAY_ALIASES.map((alias) => {
    const way = wayOf(alias.way)!;
    return mp({
      method: 'post',
      path: `/mp/api${alias.path}`,
      summary: `\`POST /mp/api/pay\` with \`way: "${way.name}"\`${way.flow === 'wap' ? '' : `, its login code as \`${alias.codeField}\``}: ${way.words.en.summary}`,
      description: `${way.flow === 'wap' ? COMES_BACK : 'A code is good once.'} ${NOT_SUCCESS}`,
      body: alias.body,
      answer: pageWayAnswer([way]),
      errors: pageWayErrors(way),
    });
  }),
  {
    method: 'get',
    path: '/',
    tag: 'Pages',
    auth: 'none',
    summary: 'The front page: links to the POS, the payer page, the console, the API reference and the sandbox',
    query: z.object({ lang: z.enum(['zh-CN', 'en']).optional() }),
    answer: html('The front page'),
  },
  {
    method: 'get',
    path: '/p/:prepayId',
    tag: 'Pages',
    auth: 'none',
    summary: `The POS's code for any wallet: ${orList(
      'en',
      BROWSERS.map((w) => `${w.names.en}'s`),
      ' and ',
    )} browsers go on to the payer page, any other is told to scan with either app`,
    description:
      `By the user agent, as each wallet declares its app's browser: ${orList(
        'en',
        BROWSERS.map((w) => `\`${userAgentToken(w)}\` (${w.names.en})`),
        ' and ',
      )} ` +
      'get 302 to `/mp/#/pages/pay/index?scene=sm.pay%3Fprepayid%3D<prepayId>`, where the page pays with that app; any other browser gets this page, in both languages (its own first). A path that holds no prepay id answers 404 with the same page saying so.',
    params: z.object({ prepayId: z.string() }),
    query: z.object({ lang: z.enum(['zh-CN', 'en']).optional() }),
    answer: html(`Scan with ${everyWalletName('en')}, in both languages`),
    answers: {
      302: {
        description: `${capitalized(
          orList(
            'en',
            BROWSERS.map((w) => `${w.names.en}'s`),
          ),
        )} browser: on to the payer page of the order`,
      },
    },
  },
  { method: 'get', path: '/pos/', tag: 'Pages', auth: 'none', summary: 'The POS display (cashier and customer screen)', answer: html("The display's page") },
  { method: 'get', path: '/pos/index.html', tag: 'Pages', auth: 'none', summary: 'The POS display (same page as /pos/)', answer: html("The display's page") },
  {
    method: 'get',
    path: '/mp/',
    tag: 'Pages',
    auth: 'none',
    summary: "The payer mini-program's H5 build (hash routes: `#/pages/pay/index?scene=…`)",
    answer: html('The mini-program page'),
  },
  {
    method: 'get',
    path: '/mp/index.html',
    tag: 'Pages',
    auth: 'none',
    summary: "The mini-program's H5 build (same page as /mp/)",
    answer: html('The mini-program page'),
  },
];
