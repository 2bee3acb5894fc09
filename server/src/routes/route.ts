/**
 * One description per JSON route: method, path, who may call, the zod schemas of its input and
 * answer, its failures and examples, and its handler, in one object (`defineRoute`). The same
 * object is served over HTTP (`http/api-routes.ts`), called in-process by the front-end routers
 * (`routes/in-process.ts`) and described in `/openapi.json` (`openapi/document.ts`), so a route
 * cannot say one thing and do another. Both callers go through `runRoute`: the route's own
 * schemas validate the input, then its handler runs with the caller's app, so the handler (and
 * the services' ownership checks behind it) meets the same input and the same identity whoever calls.
 */
import type { ErrorId } from '@kit/shared';
import { ZodObject, type z, type ZodTypeAny } from 'zod';
import type { Config } from '../config';
import type { Services } from '../services';
import type { SpentSignature } from '../apps/replay-guard';
import type { WaitSignal } from '../orders/order-events';
import { validate } from '../http/validate';
// Also gives zod schemas `.openapi(...)` (descriptions, examples), which the route definitions use.
import '../openapi/describe';
import type { RouteDoc } from '../openapi/describe';

/** What a handler is given besides its input. */
export interface RouteServices {
  services: Services;
  config: Config;
}

/**
 * Who calls a route, as its handler sees it: over HTTP the app whose signature was verified, in
 * process the app that owns the merchant a front-end router acts for.
 */
export interface Caller {
  /** The calling app (signed routes; a signed route never runs without one). */
  readonly appId: string;
  /** The signature a `replayInService` route records in its own transaction (over HTTP only). */
  readonly replay?: SpentSignature;
  /** The caller's address (the login's brute-force limit). */
  readonly ip?: string;
  /** When the caller signed the call (its `_t`; over HTTP only): when it asked, by its own clock. */
  readonly signedAt?: number;
  /** Aborts when the caller goes away; asked for only by a call that holds (4.2 waitForFinish). */
  hold(): WaitSignal | undefined;
}

type Out<S> = S extends ZodTypeAny ? z.output<S> : undefined;
type Part<K extends string, S> = S extends ZodTypeAny ? { [k in K]: z.input<S> } : { [k in K]?: undefined };

/** The input of a call as it arrives: path fields, query fields and body, before validation. */
export type RouteInput<P, Q, B> = Part<'params', P> & Part<'query', Q> & Part<'body', B>;

export interface RouteContext<P, Q, B> extends RouteServices {
  /** Validated by the route's `params` schema. */
  params: Out<P>;
  /** Validated by the route's `query` schema. */
  query: Out<Q>;
  /** Validated by the route's `body` schema. */
  body: Out<B>;
  caller: Caller;
}

type DocFields = Omit<RouteDoc, 'params' | 'query' | 'body' | 'answer' | 'auth' | 'headers' | 'answers' | 'sandboxOnly'>;

export interface RouteDefinition<
  P extends ZodTypeAny | undefined,
  Q extends ZodTypeAny | undefined,
  B extends ZodTypeAny | undefined,
  A extends ZodTypeAny,
  R,
> extends DocFields {
  /** Signed by an app (`_appid`, `_t`, `_s`), or open to anyone (the merchant login, authenticated by its password). */
  auth: 'signed' | 'none';
  params?: P;
  query?: Q;
  body?: B;
  /** The 200 answer. */
  answer: A;
  /**
   * Shown in the reference in place of the schemas the route validates with, where the reference
   * says more than the check does (a money field's description, the items of an envelope checked first).
   */
  documented?: Pick<RouteDoc, 'params' | 'query' | 'body'>;
  /** The route records the signature in the replay guard itself, in its own transaction (`Caller.replay`): one commit instead of two. */
  replayInService?: boolean;
  /** Accepted only over a secure connection (a password travels in it); refused before anything else is read. */
  secureConnection?: boolean;
  /** Failures answered over HTTP with status 200 and `status: "fail"` instead of their HTTP status (4.2: its client loop re-calls at once on any non-200). */
  failsWith200?: readonly ErrorId[];
  /** Runs the call: validated input and the caller in, the answer out (a failure is a thrown `KitError`). */
  handler(ctx: RouteContext<P, Q, B>): R | Promise<R>;
}

export type Route<
  P extends ZodTypeAny | undefined = ZodTypeAny | undefined,
  Q extends ZodTypeAny | undefined = ZodTypeAny | undefined,
  B extends ZodTypeAny | undefined = ZodTypeAny | undefined,
  A extends ZodTypeAny = ZodTypeAny,
  R = unknown,
> = Readonly<RouteDefinition<P, Q, B, A, R>>;

/** A route of any input and answer, as the HTTP table and the document see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the table holds routes of every input type; each is checked where it is defined
export type AnyRoute = Route<any, any, any, any, any>;

/**
 * One route, described and implemented. The handler's answer must fit the `answer` schema (checked
 * by the compiler): what the reference promises is what the handler returns.
 */
export function defineRoute<
  R extends z.input<A>,
  A extends ZodTypeAny,
  P extends ZodTypeAny | undefined = undefined,
  Q extends ZodTypeAny | undefined = undefined,
  B extends ZodTypeAny | undefined = undefined,
>(def: RouteDefinition<P, Q, B, A, R>): Route<P, Q, B, A, R> {
  return Object.freeze(def);
}

/**
 * The one way into a route, over HTTP and in-process: the input is validated with the route's
 * schemas (path, then query, then body: the first mismatch is one `invalid_request`), then the
 * handler runs with the caller. Throws synchronously for a refused input; the handler may answer
 * synchronously or with a promise.
 */
export function runRoute<P extends ZodTypeAny | undefined, Q extends ZodTypeAny | undefined, B extends ZodTypeAny | undefined, R>(
  route: Route<P, Q, B, ZodTypeAny, R>,
  deps: RouteServices,
  caller: Caller,
  params: unknown,
  query: unknown,
  body: unknown,
): R | Promise<R> {
  return route.handler({
    services: deps.services,
    config: deps.config,
    params: (route.params ? validate(route.params, params, 'path') : undefined) as Out<P>,
    query: (route.query ? validate(route.query, query, 'query') : undefined) as Out<Q>,
    body: (route.body ? validate(route.body, body) : undefined) as Out<B>,
    caller,
  });
}

/** The route as the OpenAPI document describes it. */
export function routeDoc(route: AnyRoute): RouteDoc {
  const { handler: _h, documented, replayInService: _r, secureConnection: _s, failsWith200: _f, ...doc } = route;
  const described = { ...doc, ...documented };
  // OpenAPI lists path and query fields one by one: a refined schema shows its fields through `documented`.
  for (const part of ['params', 'query'] as const) {
    if (described[part] && !(described[part] instanceof ZodObject))
      throw new Error(`${route.method} ${route.path}: document its ${part} fields (documented.${part})`);
  }
  return described;
}
