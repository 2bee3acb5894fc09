import type { IRouter, RequestHandler } from 'express';
import type { ApiVersion } from '@kit/shared';
import { apiGroup } from './api-group';

/**
 * One group of JSON endpoints under a path prefix (`/submerchant-pay`, `/merchant`, …). Each
 * endpoint is registered on the application itself as one route whose first handler is the
 * group's plumbing (answer version, body within the group's limit). A request thus meets one
 * route instead of a mounted router per group, which on Express 5 costs a second route-table walk
 * and a rewrite of `req.url` per request (measured: signed creation 0.52 → 0.58 of bare Express).
 */
export class ApiRoutes {
  private readonly plumbing: RequestHandler;

  constructor(
    private readonly target: IRouter,
    private readonly prefix: string,
    version: ApiVersion,
    bodyLimit: string | number,
  ) {
    this.plumbing = apiGroup(version, bodyLimit);
  }

  get(path: string, ...handlers: RequestHandler[]): this {
    this.target.get(this.prefix + path, this.plumbing, ...handlers);
    return this;
  }

  post(path: string, ...handlers: RequestHandler[]): this {
    this.target.post(this.prefix + path, this.plumbing, ...handlers);
    return this;
  }

  put(path: string, ...handlers: RequestHandler[]): this {
    this.target.put(this.prefix + path, this.plumbing, ...handlers);
    return this;
  }
}
