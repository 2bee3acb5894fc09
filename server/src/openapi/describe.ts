/**
 * How a route is described for the OpenAPI document: one plain object per route. The JSON API's
 * routes carry their description in their definition (`routes/route.ts`); the other routes
 * (operations, the channels' notifications, the front-end routers, the sandbox) are described in
 * `paths/*.ts`. The OpenAPI test names any route that is served but not described, or described
 * but not served.
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z, type ZodTypeAny } from 'zod';
import type { ErrorId } from '@kit/shared';

// `.openapi(...)` on zod schemas (examples, descriptions); zod's own behaviour is unchanged.
extendZodWithOpenApi(z);

export type Method = 'get' | 'post' | 'put' | 'delete' | 'patch' | 'options';

/** Who may call: signed by an app (`_appid`, `_t`, `_s`), the POS login cookie, the metrics token, or anyone. */
export type Auth = 'signed' | 'posCookie' | 'consoleCookie' | 'metricsToken' | 'none';

export interface Body {
  contentType: string;
  schema: ZodTypeAny;
}

export interface RouteDoc {
  method: Method;
  /** Express-style path relative to the service's base URL: `/submerchant-pay/prePay/:prepayId`. */
  path: string;
  tag: string;
  /** The specification section the route implements ("4.2"), when it implements one. */
  section?: string;
  summary: string;
  description?: string;
  /** Its summary and description in Chinese, when the route carries them itself (a way: its declaration's words). */
  zh?: { summary: string; description?: string };
  auth: Auth;
  params?: z.AnyZodObject;
  query?: z.AnyZodObject;
  /** Request headers the route reads (the channels' signature headers). */
  headers?: z.AnyZodObject;
  /** A zod schema (JSON) or another content type; several when the route takes more than one. */
  body?: ZodTypeAny | Body | readonly Body[];
  /** The 200 answer: a zod schema (JSON) or another content type. */
  answer: ZodTypeAny | Body;
  answerDescription?: string;
  /**
   * The other answers by HTTP status, in place of the error catalogue's: for routes that answer in
   * another party's protocol (the channels' notifications), not with the kit's `{status: "fail"}`.
   */
  answers?: Readonly<Record<number, { description: string; content?: readonly Body[] }>>;
  /** Failures this route can answer (besides the signature failures every signed route can). */
  errors?: readonly ErrorId[];
  /** Example request body and answer, shown in the reference. */
  example?: { body?: unknown; answer?: unknown };
  /** Served only when the sandbox is on (SANDBOX_ENABLED). */
  sandboxOnly?: boolean;
}

export const json = (schema: ZodTypeAny): Body => ({ contentType: 'application/json', schema });
export const xml = (description: string): Body => ({ contentType: 'application/xml', schema: z.string().openapi({ description }) });
export const html = (description: string): Body => ({ contentType: 'text/html', schema: z.string().openapi({ description }) });
export const text = (contentType: string, description: string): Body => ({ contentType, schema: z.string().openapi({ description }) });

/** `{version, status: "success"}` plus the given fields: the plain answer of many routes. */
export const success = <T extends z.ZodRawShape>(version: 1 | '1', shape: T) =>
  z.object({ version: z.literal(version), status: z.literal('success'), ...shape });

/** `:name` → `{name}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
