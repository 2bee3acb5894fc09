/** Health, metrics, this document and its reference page, and the payment channels' notification endpoints. */
import { z } from 'zod';
import { html, text, xml, type RouteDoc } from '../describe';

const notification = xml('Payment protocol v2 notification (XML, signed by the channel); answered with return_code SUCCESS or FAIL');

export const operationRoutes: RouteDoc[] = [
  {
    method: 'get',
    path: '/health',
    tag: 'Operations',
    summary: 'Ready check: 200 once the database is migrated and workers run, 503 while shutting down',
    auth: 'none',
    answer: z.object({ status: z.enum(['ok', 'shutting_down']) }),
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
    auth: 'none',
    answer: z.object({ openapi: z.string() }).passthrough(),
  },
  { method: 'get', path: '/docs/', tag: 'Operations', summary: 'Readable API reference of this document', auth: 'none', answer: html('The reference page') },
  ...(['pay', 'refund'] as const).map((kind): RouteDoc => ({
    method: 'post',
    path: `/pay-notify/:realm/${kind}`,
    tag: 'Channel notifications',
    summary: `${kind === 'pay' ? 'Payment' : 'Refund'} notifications from a payment channel (the notify URL the service gives the channel)`,
    auth: 'none',
    params: z.object({
      realm: z.enum(['social', 'card']).openapi({ description: '`social`: the social payment platform; `card`: the card-network acquirer' }),
    }),
    body: notification,
    answer: notification,
    errors: ['notification_invalid'],
  })),
];
