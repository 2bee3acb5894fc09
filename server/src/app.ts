/** The Express application: plumbing, route groups, error mapping. No business rules here. */
import express from 'express';
import type { Logger } from 'pino';
import { CHAIN_VERSION, PAY_VERSION, type ApiVersion } from '@kit/shared';
import type { Config } from './config';
import type { Services } from './services';
import { requestContext } from './http/request-context';
import { ApiRoutes } from './http/api-routes';
import { requireSignature } from './http/signature';
import { errorHandler, notFound } from './http/errors';
import type { RouteDeps } from './routes/deps';
import { healthHandler, livenessHandler } from './routes/health';
import { merchantRoutes } from './routes/merchant';
import { prepayRoutes } from './routes/submerchant-pay';
import { paymentRoutes } from './routes/payments';
import { profitSharingRoutes } from './routes/profit-sharing';
import { reconciliationRoutes } from './routes/reconciliation';
import { payNotifyRoutes } from './routes/pay-notify';
import { callbackRoutes } from './routes/callbacks';
import { sandboxRoutes } from './sandbox/sandbox-routes';
import { chainRoutes } from './routes/chain';
import { donationRoutes } from './routes/donation';
import { pointsRoutes } from './routes/points';
import { posApiRoutes, posStatic, DEFAULT_POS_DIST } from './frontends/pos';
import { mpApiRoutes, mpStatic, DEFAULT_MP_H5_DIR } from './frontends/mp';
import { consoleApiRoutes, consoleStatic, DEFAULT_CONSOLE_DIST } from './frontends/console';
import { metricsHandler, routeLabel } from './metrics/metrics-route';
import { docsRoutes, openApiHandler } from './openapi/docs-routes';
import { homePage } from './frontends/pages/home-page';

/** Body limit of ordinary JSON endpoints. */
export const BODY_LIMIT = '256kb';

export function createApp(config: Config, services: Services, log: Logger, state: { shuttingDown: boolean }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('query parser', 'simple');
  app.set('etag', false);

  const signed = requireSignature({ apps: services.apps, basePath: config.BASE_PATH, toleranceMs: config.SIGNATURE_TOLERANCE });
  const signedInService = requireSignature({ apps: services.apps, basePath: config.BASE_PATH, toleranceMs: config.SIGNATURE_TOLERANCE, replayInService: true });
  const deps: RouteDeps = { config, services, signed, signedInService, state };

  // Without a base path the groups hang off the application itself: one router fewer per request.
  const api = config.BASE_PATH ? express.Router() : app;
  const { metrics } = services;
  api.use(requestContext(log, (req, res, seconds) => metrics.observeRequest(req.method, routeLabel(req, config.BASE_PATH), res.statusCode, seconds)));
  const groups: ApiRoutes[] = [];
  const group = (prefix: string, version: ApiVersion, bodyLimit: string) => {
    const g = new ApiRoutes(api, prefix, version, bodyLimit);
    groups.push(g);
    return g;
  };
  const pay = group('/submerchant-pay', PAY_VERSION, BODY_LIMIT);
  prepayRoutes(pay, deps);
  paymentRoutes(pay, deps);
  profitSharingRoutes(pay, deps);
  merchantRoutes(group('/merchant', PAY_VERSION, BODY_LIMIT), deps);
  callbackRoutes(group('/callbacks', PAY_VERSION, BODY_LIMIT), deps);
  reconciliationRoutes(group('/reconciliation', PAY_VERSION, BODY_LIMIT), deps);
  api.get('/health', healthHandler(deps));
  api.get('/health/live', livenessHandler);
  api.get('/metrics', metricsHandler(metrics, config.METRICS_TOKEN));
  api.get('/openapi.json', openApiHandler({ sandbox: !!services.sandbox, serverUrl: config.BASE_PATH || '/' }));
  api.use('/docs', docsRoutes());
  api.use('/pay-notify', payNotifyRoutes(deps));
  if (services.sandbox) api.use('/sandbox', sandboxRoutes(services.sandbox, { home: `${config.BASE_PATH}/` }));
  api.get('/', homePage({ basePath: config.BASE_PATH, sandbox: !!services.sandbox }));
  // Uploads take up to 50 items of 50 KB each.
  chainRoutes(group('/common-chain-upload', CHAIN_VERSION, '4mb'), deps);
  donationRoutes(group('/donation', CHAIN_VERSION, BODY_LIMIT), deps);
  pointsRoutes(group('/fungible-token', CHAIN_VERSION, BODY_LIMIT), deps);
  api.use('/pos/api', posApiRoutes(deps));
  api.use('/pos', posStatic(config.POS_DIST_DIR ?? DEFAULT_POS_DIST));
  api.use('/mp/api', mpApiRoutes(deps));
  api.use('/mp', mpStatic(config.MP_H5_DIR ?? DEFAULT_MP_H5_DIR));
  api.use('/console/api', consoleApiRoutes(deps));
  api.use('/console', consoleStatic(config.CONSOLE_DIST_DIR ?? DEFAULT_CONSOLE_DIST));
  for (const g of groups) g.closeMethods();
  api.use(notFound);
  api.use(errorHandler);

  if (api !== app) app.use(config.BASE_PATH, api);
  return app;
}
