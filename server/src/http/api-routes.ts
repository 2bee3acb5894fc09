import type { IRouter, Request, RequestHandler, Response } from 'express';
import { KitError, type ApiVersion } from '@kit/shared';
import { apiGroup } from './api-group';
import { failBody, methodNotAllowed } from './errors';
import { isSecure } from './secure-connection';
import { signer } from './signature';
import { callerGone } from './caller-gone';
import { runRoute, type AnyRoute, type Caller } from '../routes/route';
import type { RouteDeps } from '../routes/deps';

/**
 * One group of JSON endpoints under a path prefix (`/submerchant-pay`, `/merchant`, …). Each
 * endpoint is registered on the application itself as one route whose first handler is the
 * group's plumbing (answer version, body within the group's limit). A request thus meets one
 * route instead of a mounted router per group, which on Express 5 costs a second route-table walk
 * and a rewrite of `req.url` per request (docs/performance.md, "What the speed tricks buy").
 */
export class ApiRoutes {
  private readonly plumbing: RequestHandler;
  /** Methods registered per path, for the 405 answers of `closeMethods`. */
  private readonly methods = new Map<string, string[]>();

  constructor(
    private readonly target: IRouter,
    readonly prefix: string,
    version: ApiVersion,
    bodyLimit: string | number,
  ) {
    this.plumbing = apiGroup(version, bodyLimit);
  }

  /** Serves a route (`routes/route.ts`) of this group: plumbing, then the signature check when it is signed, then the route. */
  add(route: AnyRoute, deps: RouteDeps): this {
    if (!route.path.startsWith(this.prefix)) throw new Error(`${route.path} is not under ${this.prefix}`);
    const method = route.method.toUpperCase();
    this.methods.set(route.path, [...(this.methods.get(route.path) ?? []), method]);
    const auth = route.auth === 'signed' ? [route.replayInService ? deps.signedInService : deps.signed] : [];
    this.target[route.method](route.path, this.plumbing, ...auth, serve(route, deps));
    return this;
  }

  /**
   * After every route of the application: a known path asked with another method answers 405
   * with the group's `version` instead of falling through to "no such endpoint".
   */
  closeMethods(): void {
    for (const [path, methods] of this.methods) this.target.all(path, this.plumbing, methodNotAllowed(methods));
  }
}

/** The caller of an HTTP request: the verified signer, its address, and its connection for a held call. */
class HttpCaller implements Caller {
  constructor(
    private readonly req: Request,
    private readonly res: Response,
  ) {}
  get appId(): string {
    return signer(this.res);
  }
  get replay() {
    return this.res.locals.replay;
  }
  get ip() {
    return this.req.ip;
  }
  get signedAt(): number | undefined {
    return this.res.locals.signedAt;
  }
  hold() {
    return callerGone(this.res);
  }
}

/** Writes a route's answer, unless its caller is gone (a held call whose caller hung up). */
function send(res: Response, answer: unknown): void {
  if (!res.writableEnded && !res.locals.gone?.aborted) res.json(answer);
}

/** The request handler of one route: its input from the request, its answer as JSON, its failures to the error handler. */
function serve(route: AnyRoute, deps: RouteDeps): RequestHandler {
  const with200 = new Set(route.failsWith200 ?? []);
  const refuseInsecure = !!route.secureConnection;
  return (req, res, next) => {
    const fail = (e: unknown) => (e instanceof KitError && with200.has(e.error) ? res.json(failBody(e, res)) : next(e));
    let answer: unknown;
    try {
      if (refuseInsecure && !isSecure(req, deps.config.ALLOW_INSECURE_LOGIN_ON_LOOPBACK)) {
        throw new KitError('secure_connection_required', 'log in over HTTPS (passwords never travel in plain text)');
      }
      answer = runRoute(route, deps, new HttpCaller(req, res), req.params, req.query, req.body);
    } catch (e) {
      return void fail(e);
    }
    if (answer instanceof Promise) answer.then((a: unknown) => send(res, a), fail);
    else send(res, answer);
  };
}
