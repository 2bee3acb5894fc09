/** Health, metrics, this document and its reference page, and the payment channels' notification endpoints. */
import { z } from 'zod';
import type { ProviderModule } from '../../payments/providers/provider';
import { PROVIDERS } from '../../payments/providers/registry';
import { html, text, type Body, type RouteDoc } from '../describe';

/**
 * These routes as a service of these providers serves them (the registry's by default): the realms
 * of `/pay-notify/<realm>` and the notifications' bodies are those of the providers it was given, so
 * that a wallet registered at the root is described as it is served.
 */
export function operationRoutes(providers: readonly ProviderModule[] = PROVIDERS): RouteDoc[] {
  // Each provider describes its notifications (`notificationDoc`); a protocol several share is described once.
  const docs = [...new Map(providers.filter((m) => !m.notificationDoc.oneUrl).map((m) => [m.notificationDoc.protocol, m.notificationDoc])).values()];
  const bodies = (pick: (d: (typeof docs)[number]) => unknown) => docs.map(pick).filter((b): b is Body => b !== undefined);
  const headers = Object.assign({}, ...docs.map((d) => d.headers ?? {}));
  const ackWithBody = docs.find((d) => d.ack.content !== undefined) ?? docs[0];
  const realms = [...new Set(providers.map((m) => m.realm))] as [string, ...string[]];
  // Platforms that send payments and refunds to one URL (`/pay-notify/<realm>`).
  const oneUrl = providers.filter((m) => m.notificationDoc.oneUrl);
  const oneUrlRealms = [...new Set(oneUrl.map((m) => m.realm))] as [string, ...string[]];
  return [
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
      description:
        'With `lang=zh-CN`, its prose (introduction, groups, signing, the operations’ summaries) in Chinese, as the /docs/ language switch shows it.',
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
    ...(docs.length ? (['pay', 'refund'] as const) : []).map((kind): RouteDoc => ({
      method: 'post',
      path: `/pay-notify/:realm/${kind}`,
      tag: 'Channel notifications',
      summary: `${kind === 'pay' ? 'Payment' : 'Refund'} notifications from a payment channel (the notify URL the service gives the channel)`,
      auth: 'none',
      params: z.object({
        realm: z
          .enum(realms)
          .openapi({ description: realms.map((realm) => `\`${realm}\`: ${providers.find((m) => m.realm === realm)!.description}`).join('; ') }),
      }),
      description:
        'Answered in the protocol the channel speaks, never with the kit\'s `{status: "fail"}`: anything but an acknowledgement makes the channel repeat the notification, and a refused one changes nothing.',
      headers: z.object(headers),
      body: bodies((d) => d.body),
      answer: ackWithBody.ack.content as Body,
      answerDescription: ackWithBody.ack.description,
      answers: {
        ...Object.fromEntries(docs.filter((d) => d.ack.content === undefined).map((d) => [d.ack.status, { description: d.ack.description }])),
        400: {
          description: `Refused (forged, stale, a probe, or not matching the order), in the realm's protocol (${docs.map((d) => d.protocol).join(', ')})`,
          content: bodies((d) => d.refusal),
        },
        500: {
          description: "The service's own failure (its database down…): the same bodies; the channel repeats the notification later",
          content: bodies((d) => d.refusal),
        },
      },
    })),
    ...oneUrl.slice(0, 1).map((first): RouteDoc => ({
      method: 'post',
      path: '/pay-notify/:realm',
      tag: 'Channel notifications',
      summary: 'Payment and refund notifications from a channel that sends both to one notify URL',
      auth: 'none',
      params: z.object({
        realm: z.enum(oneUrlRealms).openapi({ description: oneUrl.map((m) => `\`${m.realm}\`: ${m.description}`).join('; ') }),
      }),
      description:
        'Answered in the protocol the channel speaks: anything but an acknowledgement makes the channel repeat the notification, and a refused one (bad signature, unknown order, wrong amount) changes nothing.',
      body: [first.notificationDoc.body as Body],
      answer: first.notificationDoc.ack.content as Body,
      answerDescription: first.notificationDoc.ack.description,
      answers: {
        400: { description: "Refused, in the channel's protocol", content: [first.notificationDoc.refusal as Body] },
        500: { description: "The service's own failure: the channel repeats the notification later", content: [first.notificationDoc.refusal as Body] },
      },
    })),
  ];
}
