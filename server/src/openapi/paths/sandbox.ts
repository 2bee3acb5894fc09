/**
 * The payment sandbox (development and tests only, SANDBOX_ENABLED): the platform's protocol
 * endpoints the service calls, and the payer side a person or a test uses to pay.
 */
import { z } from 'zod';
import { PROTOCOL_PATHS } from '../../payments/protocol/client';
import { html, xml, type RouteDoc } from '../describe';
import { faultsSchema } from '../../sandbox/sandbox-faults';

const sandbox = (doc: Omit<RouteDoc, 'tag' | 'auth' | 'sandboxOnly'>): RouteDoc => ({
  tag: 'Sandbox (development only)',
  auth: 'none',
  sandboxOnly: true,
  ...doc,
});
const fail = z.object({ status: z.literal('fail'), msg: z.string() });
const protocolXml = xml('Payment protocol v2 message (XML, signed with the service provider key)');

export const sandboxRoutes: RouteDoc[] = [
  ...(['', '/card'] as const).flatMap((prefix) =>
    Object.entries(PROTOCOL_PATHS).map(([op, path]): RouteDoc =>
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
    path: '/sandbox/pay',
    summary: 'Pay a scan-code QR content (`codeUrl`) or a mini-program payment (`package`) as a payer would',
    body: z.object({ codeUrl: z.string().optional(), package: z.string().optional(), openId: z.string().optional() }).passthrough(),
    answer: z.union([z.object({ status: z.literal('success'), transactionId: z.string() }), fail]),
  }),
  sandbox({
    method: 'post',
    path: '/sandbox/login',
    summary: 'A login code for a sandbox payer (the stand-in for the mini-program login)',
    body: z.object({ user: z.string().optional() }),
    answer: z.object({}).passthrough(),
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
    method: 'get',
    path: '/sandbox/cashier',
    summary: 'The sandbox cashier page where a person pays a mini-program payment',
    query: z.object({ package: z.string(), return: z.string().optional() }),
    answer: html('The cashier page'),
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
  // The payer API answers CORS preflights (pages on other origins call it).
  ...['/sandbox/pay', '/sandbox/login', '/sandbox/renotify', '/sandbox/sns/jscode2session', '/sandbox/faults'].map((path): RouteDoc =>
    sandbox({
      method: 'options',
      path,
      summary: 'CORS preflight',
      answer: { contentType: 'text/plain', schema: z.string().openapi({ description: 'Empty (204)' }) },
    }),
  ),
];
