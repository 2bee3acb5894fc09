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
import { apiRoutes } from './routes';
import { InProcessApi } from './routes/in-process';
import { payNotifyRoutes } from './routes/pay-notify';
import { posApiRoutes, posStatic, DEFAULT_POS_DIST } from './frontends/pos';
import { mpApiRoutes, mpStatic, DEFAULT_MP_H5_DIR } from './frontends/mp';
import { consoleApiRoutes, consoleStatic, DEFAULT_CONSOLE_DIST } from './frontends/console';
import { metricsHandler, routeLabel } from './metrics/metrics-route';
import { docsRoutes, openApiHandler } from './openapi/docs-routes';
import { homePage } from './frontends/pages/home-page';
import { payerLink } from './frontends/pages/payer-link';

/** Body limit of ordinary JSON endpoints. */
export const BODY_LIMIT = '256kb';

const inGroup = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The path prefixes of the JSON API (`routes/`), with the `version` their answers carry (section 9) and their body limit (uploads take up to 50 items of 50 KB each). */
const API_GROUPS: ReadonlyArray<[prefix: string, version: ApiVersion, bodyLimit: string]> = [
  ['/submerchant-pay', PAY_VERSION, BODY_LIMIT],
  ['/merchant', PAY_VERSION, BODY_LIMIT],
  ['/callbacks', PAY_VERSION, BODY_LIMIT],
  ['/reconciliation', PAY_VERSION, BODY_LIMIT],
  ['/common-chain-upload', CHAIN_VERSION, '4mb'],
  ['/donation', CHAIN_VERSION, BODY_LIMIT],
  ['/fungible-token', CHAIN_VERSION, BODY_LIMIT],
];

export function createApp(config: Config, services: Services, log: Logger, state: { shuttingDown: boolean }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('query parser', 'simple');
  app.set('etag', false);

  const signed = requireSignature({ apps: services.apps, basePath: config.BASE_PATH, toleranceMs: config.SIGNATURE_TOLERANCE, clock: services.clock });
  const signedInService = requireSignature({
    apps: services.apps,
    basePath: config.BASE_PATH,
    toleranceMs: config.SIGNATURE_TOLERANCE,
    clock: services.clock,
    replayInService: true,
  });
  // The JSON API of this service's wallets (its providers'): their ways, 4.7's channels.
  const routes = apiRoutes(services.wallets);
  const deps: RouteDeps = { config, services, signed, signedInService, state, api: new InProcessApi({ services, config }) };

  // Without a base path the groups hang off the application itself: one router fewer per request.
  const api = config.BASE_PATH ? express.Router() : app;
  const { metrics } = services;
  api.use(requestContext(log, (req, res, seconds) => metrics.observeRequest(req.method, routeLabel(req, config.BASE_PATH), res.statusCode, seconds)));
  const groups = API_GROUPS.map(([prefix, version, bodyLimit]) => new ApiRoutes(api, prefix, version, bodyLimit));
  const serve = (prefixes: readonly string[]) => {
    for (const g of groups.filter((g) => prefixes.includes(g.prefix))) for (const route of routes) if (inGroup(route.path, g.prefix)) g.add(route, deps);
  };
  const unserved = routes.filter((r) => !groups.some((g) => inGroup(r.path, g.prefix)));
  if (unserved.length) throw new Error(`no API group serves ${unserved.map((r) => r.path).join(', ')}`);
  serve(['/submerchant-pay', '/merchant', '/callbacks', '/reconciliation']);
  api.get('/health', healthHandler(deps));
  api.get('/health/live', livenessHandler);
  api.get('/metrics', metricsHandler(metrics, config.METRICS_TOKEN));
  const dev = services.dev;
  api.get('/openapi.json', openApiHandler({ dev: dev?.plugin.openApi, serverUrl: config.BASE_PATH || '/', routes, providers: services.registered }));
  api.use('/docs', docsRoutes());
  api.use('/pay-notify', payNotifyRoutes(deps));
  // A development plug-in's routes (the sandbox's, `/sandbox`): only when one was loaded.
  if (dev) api.use(dev.parts.mountPath, dev.parts.routes({ home: `${config.BASE_PATH}/` }));
  api.get('/', homePage({ basePath: config.BASE_PATH, links: dev?.parts.homeLinks ?? [] }));
  // The chain's groups after the payments' notifications: every route a request passes costs it a match.
  serve(['/common-chain-upload', '/donation', '/fungible-token']);
  api.use('/pos/api', posApiRoutes(deps));
  api.use('/pos', posStatic(config.POS_DIST_DIR ?? DEFAULT_POS_DIST));
  // The POS's one code for any wallet: the app that opens it decides (frontends/pages/payer-link.ts).
  api.get('/p/:prepayId', payerLink({ basePath: config.BASE_PATH }));
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
