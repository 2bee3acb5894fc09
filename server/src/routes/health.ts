import type { RequestHandler } from 'express';
import type { RouteDeps } from './deps';

/**
 * `GET /health`, the readiness check: 200 `{status: "ok", database: "ok"}` while the database
 * answers; 503 `{status: "unavailable", database: <why>}` while it does not (a load balancer then
 * routes elsewhere; the instance recovers by itself when the database returns); 503
 * `shutting_down` while stopping.
 */
export function healthHandler({ state, services }: RouteDeps): RequestHandler {
  return async (_req, res) => {
    res.setHeader('cache-control', 'no-store');
    if (state.shuttingDown) return void res.status(503).json({ status: 'shutting_down' });
    const problem = await services.database.problem();
    if (problem) return void res.status(503).setHeader('retry-after', '5').json({ status: 'unavailable', database: problem });
    res.json({ status: 'ok', database: 'ok' });
  };
}

/** `GET /health/live`, the liveness check: 200 while the process serves HTTP at all, whatever the database does (restarting the process would not bring it back). */
export const livenessHandler: RequestHandler = (_req, res) => {
  res.setHeader('cache-control', 'no-store');
  res.json({ status: 'ok' });
};
