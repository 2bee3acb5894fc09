/** Health, metrics, this document and its reference page, and the payment channels' notification endpoints. */
import { z } from 'zod';
import { CHANNEL_MODULES, REALMS } from '../../payments/channels';
import { html, json, text, xml, type RouteDoc } from '../describe';

// Protocol v2 (`card`, and `social` with `PAY_PROTOCOL=v2`): XML both ways.
const v2Notification = xml('Protocol v2 (`card`, and `social` with `PAY_PROTOCOL=v2`): the XML notification, signed by the channel (`sign`)');
const v2Ack = xml('Protocol v2: `<xml><return_code>SUCCESS</return_code><return_msg>OK</return_msg></xml>`, so the channel stops repeating it');
const v2Refusal = xml('Protocol v2: `<xml><return_code>FAIL</return_code><return_msg>…</return_msg></xml>`; the channel repeats the notification');

// API v3 (`social` with `PAY_PROTOCOL=v3`, the default): signed JSON in, 204 or `{code: "FAIL", message}` out.
const v3Notification = json(
  z
    .object({
      id: z.string().openapi({ description: 'The notification id (the same for repeats of one notification)' }),
      create_time: z.string().openapi({ description: 'RFC 3339' }),
      event_type: z.string().openapi({ description: '`TRANSACTION.SUCCESS` (pay) or `REFUND.SUCCESS` / `REFUND.ABNORMAL` / `REFUND.CLOSED` (refund)' }),
      resource_type: z.literal('encrypt-resource'),
      summary: z.string().optional(),
      resource: z.object({
        algorithm: z.literal('AEAD_AES_256_GCM'),
        ciphertext: z
          .string()
          .openapi({ description: 'Base64 of the encrypted transaction or refund JSON followed by its 16-byte tag, under the APIv3 key (PAY_V3_KEY)' }),
        associated_data: z.string().optional(),
        nonce: z.string(),
        original_type: z.string().openapi({ description: '`transaction` or `refund`' }),
      }),
    })
    .openapi({ description: 'API v3 (`social` with `PAY_PROTOCOL=v3`, the default): the notification envelope, signed in the `Wechatpay-*` headers' }),
);
const v3Refusal = json(z.object({ code: z.literal('FAIL'), message: z.string() }).openapi({ description: 'API v3: the platform repeats the notification' }));
const v3Header = (what: string) =>
  z
    .string()
    .optional()
    .openapi({ description: `API v3 only: ${what}` });
const v3Headers = z.object({
  'Wechatpay-Timestamp': v3Header('Unix time in seconds, within 5 minutes of the service clock'),
  'Wechatpay-Nonce': v3Header('the nonce the signature covers'),
  'Wechatpay-Signature': v3Header('base64 SHA256-with-RSA over `TIMESTAMP\\nNONCE\\nBODY\\n`; one starting `WECHATPAY/SIGNTEST/` is a probe and is refused'),
  'Wechatpay-Serial': v3Header('the platform public-key id (`PUB_KEY_ID_…`) or certificate serial whose key verifies it'),
});

export const operationRoutes: RouteDoc[] = [
  {
    method: 'get',
    path: '/health',
    tag: 'Operations',
    summary: 'Ready check: 200 while the database answers; 503 while it does not (`unavailable`, with why) or while shutting down',
    auth: 'none',
    answer: z.object({ status: z.enum(['ok', 'unavailable', 'shutting_down']), database: z.string().optional() }),
  },
  {
    method: 'get',
    path: '/health/live',
    tag: 'Operations',
    summary: 'Liveness check: 200 while the process serves HTTP, whatever the database does',
    auth: 'none',
    answer: z.object({ status: z.literal('ok') }),
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (text format); a bearer token when METRICS_TOKEN is set',
    auth: 'metricsToken',
    answer: text('text/plain; version=0.0.4', 'Prometheus text exposition format'),
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'Operations',
    summary: 'This document (OpenAPI 3.1)',
    description: 'With `lang=zh-CN`, its prose (introduction, groups, signing, the operations’ summaries) in Chinese, as the /docs/ language switch shows it.',
    auth: 'none',
    query: z.object({ lang: z.enum(['en', 'zh-CN']).optional() }),
    answer: z.object({ openapi: z.string() }).passthrough(),
  },
  { method: 'get', path: '/docs/', tag: 'Operations', summary: 'Readable API reference of this document', auth: 'none', answer: html('The reference page') },
  {
    method: 'get',
    path: '/docs/try-it.js',
    tag: 'Operations',
    summary: 'The reference page’s “Try it”: signs calls in the browser with an app kept in the page’s memory only',
    auth: 'none',
    answer: text('text/javascript', 'The page’s script, bundled with the shared signing rules'),
  },
  ...(['pay', 'refund'] as const).map((kind): RouteDoc => ({
    method: 'post',
    path: `/pay-notify/:realm/${kind}`,
    tag: 'Channel notifications',
    summary: `${kind === 'pay' ? 'Payment' : 'Refund'} notifications from a payment channel (the notify URL the service gives the channel)`,
    auth: 'none',
    params: z.object({
      realm: z.enum(REALMS).openapi({ description: CHANNEL_MODULES.map((m) => `\`${m.realm}\`: ${m.description}`).join('; ') }),
    }),
    description:
      'Answered in the protocol the channel speaks, never with the kit\'s `{status: "fail"}`: anything but an acknowledgement makes the channel repeat the notification, and a refused one changes nothing.',
    headers: v3Headers,
    body: [v3Notification, v2Notification],
    answer: v2Ack,
    answerDescription: 'Protocol v2: acknowledged',
    answers: {
      204: { description: 'API v3: acknowledged (no body)' },
      400: {
        description: 'Refused (forged, stale, a probe, or not matching the order): API v3 `{code: "FAIL", message}`; protocol v2 XML FAIL',
        content: [v3Refusal, v2Refusal],
      },
      500: {
        description: "The service's own failure (its database down…): the same bodies; the channel repeats the notification later",
        content: [v3Refusal, v2Refusal],
      },
    },
  })),
];
