import type { RequestHandler } from 'express';
import type { Config } from '../config';
import type { Services } from '../services';
import type { InProcessApi } from './in-process';

/** What every route module is given. */
export interface RouteDeps {
  config: Config;
  services: Services;
  /** Signature check (docs/signing.md) to put in front of signed endpoints. */
  signed: RequestHandler;
  /** The same check for a route that records the signature in its own transaction (`res.locals.replay`). */
  signedInService: RequestHandler;
  state: { shuttingDown: boolean };
  /** The signed API in-process, for the front-end routers acting for a merchant's app. */
  api: InProcessApi;
}
