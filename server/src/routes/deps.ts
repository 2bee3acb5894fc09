import type { RequestHandler } from 'express';
import type { Config } from '../config';
import type { Services } from '../services';
import type { SelfClients } from '../frontends/self-client';

/** What every route module is given. */
export interface RouteDeps {
  config: Config;
  services: Services;
  /** Signature check (docs/signing.md) to put in front of signed endpoints. */
  signed: RequestHandler;
  state: { shuttingDown: boolean };
  /** This service's own base URL (set once it listens) and signed clients for its apps. */
  self: { url: string };
  selfClients: SelfClients;
}
