/**
 * Under /submerchant-pay beside the prepay routes: the ways to pay (design 7.2) — `POST
 * /submerchant-pay/pay {prepayId, way, …}` for every way, and each way's own endpoint
 * (4.3 `socialPayNative`, 4.4 `socialPay`, 4.5 `socialPayApp`, a wallet's own: 6.3's Alipay ways),
 * all generated from the ways' declarations (`@kit/shared`'s `wallets/`) — and 4.6 refund (signed,
 * plus the login token of the sub-merchant or its parent). The ways are signed: the order's creating
 * app or the owner of its sub-merchant or parent.
 */
import { z } from 'zod';
import {
  KIT_WALLETS,
  refundQuerySchema,
  refundRequestSchema,
  refundResponseSchema,
  wayAnswerSchema,
  wayRequestSchema,
  type WalletCatalogue,
  type WayDeclaration,
} from '@kit/shared';
import { defineRoute, type AnyRoute } from './route';

const PAYMENT_ERRORS = [
  'invalid_request',
  'not_owner',
  'order_not_active',
  'payment_params_missing',
  'merchant_disabled',
  'channel_error',
  'channel_unavailable',
] as const;

/** A way's own endpoint, `POST /submerchant-pay/<way>`: its declaration's input, answer and words. */
function wayRoute(way: WayDeclaration): AnyRoute {
  return defineRoute({
    method: 'post',
    path: `/submerchant-pay/${way.name}`,
    tag: 'Payments',
    section: way.section,
    summary: way.words.en.summary,
    description: way.words.en.description,
    zh: way.words['zh-CN'],
    example: { body: { prepayId: 'Qx81Fk2LmZ0a', ...way.example.input }, answer: { version: 1, status: 'success', args: way.example.args } },
    auth: 'signed',
    body: wayRequestSchema(way),
    answer: wayAnswerSchema(way.args),
    errors: [...PAYMENT_ERRORS, ...((way.errors ?? []) as typeof PAYMENT_ERRORS)],
    handler: ({ services, body, caller }) => services.payments.args.pay(caller.appId, { ...(body as Record<string, unknown>), way: way.name } as never),
  });
}

/** The one call for every way of `wallets`: `way` names it, and the rest of the body is what that way takes. */
const payRoute = (wallets: WalletCatalogue) =>
  defineRoute({
    method: 'post',
    path: '/submerchant-pay/pay',
    tag: 'Payments',
    section: '7.2',
    summary: 'Payment arguments for any way to pay (`way` names it)',
    description:
      "`way` is one of the ways' names, each also an endpoint of its own (`socialPayNative`, `socialPay`, `socialPayApp`, and each wallet's own); " +
      'the body carries what that way takes and the answer is exactly what its own endpoint answers. An unknown `way` is a 400 naming `way`.',
    zh: {
      summary: '任一支付方式的支付参数（`way` 指明方式）',
      description:
        '`way` 是各支付方式的名字，每种方式也有自己的端点（`socialPayNative`、`socialPay`、`socialPayApp`，以及各钱包自己的方式）；请求体带该方式所需的字段，应答与该方式自己的端点完全相同。未知的 `way` 应答 400 并指明 `way`。',
    },
    example: {
      body: { prepayId: 'Qx81Fk2LmZ0a', way: 'socialPayNative' },
      answer: { version: 1, status: 'success', args: { code_url: 'weixin://wxpay/bizpayurl?pr=8mZQk2Lzz' } },
    },
    auth: 'signed',
    body: wallets.payRequestSchema,
    // Described as a `oneOf` over the ways, each named by its way.
    documented: {
      body: z.union(wallets.payRequestMembers.map((m, i) => m.openapi({ title: wallets.ways[i].name })) as unknown as [z.ZodTypeAny, z.ZodTypeAny]),
    },
    answer: wallets.payAnswerSchema,
    errors: [...PAYMENT_ERRORS, 'profit_sharing_not_enabled'],
    handler: ({ services, body, caller }) => services.payments.args.pay(caller.appId, body as never),
  });

/** The routes of the ways to pay of `wallets`: the one call, and each way's own endpoint in the order of the wallets' declarations. */
export interface PaymentRoutes {
  pay: ReturnType<typeof payRoute>;
  ways: readonly AnyRoute[];
}

const routesOf = new WeakMap<WalletCatalogue, PaymentRoutes>();

/**
 * The ways' routes of a service whose wallets are `wallets` (`services.wallets`: the kit's, and any
 * its composition root was given), made once per catalogue.
 */
export function paymentRoutes(wallets: WalletCatalogue): PaymentRoutes {
  let routes = routesOf.get(wallets);
  if (!routes) routesOf.set(wallets, (routes = { pay: payRoute(wallets), ways: wallets.ways.map(wayRoute) }));
  return routes;
}

/** The kit's own wallets' ways (what docs/api.md shows): the one call, and each way's own endpoint. */
export const { pay, ways: WAY_ROUTES } = paymentRoutes(KIT_WALLETS);

export const refundOrder = defineRoute({
  method: 'post',
  path: '/submerchant-pay/refund',
  tag: 'Payments',
  section: '4.6',
  summary: 'Refund a paid order in full',
  description:
    "Needs the login token of the order's sub-merchant or of its parent (4.16) besides the signature; without one, 401. Success means accepted; the order becomes `refunded` and a `refunded` callback is sent when the channel completes it. " +
    'When the channel cannot be reached (503) the refund stays requested and the service completes it on its own.',
  example: { body: { id: 'Qx81Fk2LmZ0a' }, answer: { version: 1, status: 'success' } },
  auth: 'signed',
  // The signature's own fields share the query: only `loginToken` is read.
  query: refundQuerySchema.strip(),
  body: refundRequestSchema,
  answer: refundResponseSchema,
  errors: ['login_invalid', 'not_owner', 'not_found', 'order_not_paid', 'order_already_refunded', 'refund_in_progress', 'channel_error', 'channel_unavailable'],
  handler: ({ services, query, body, caller }) => services.payments.refunds.request(caller.appId, query.loginToken, body.id),
});
