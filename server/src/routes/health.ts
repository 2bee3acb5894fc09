import type { RequestHandler } from 'express';
import type { RouteDeps } from './deps';

/** `GET /health`: 200 once the database is migrated and workers run; 503 while shutting down. */
export function healthHandler({ state }: RouteDeps): RequestHandler {
  return (_req, res) => {
    if (state.shuttingDown) return res.status(503).json({ status: 'shutting_down' });
    res.json({ status: 'ok' });
  };
}
