/** `GET /metrics`: Prometheus text format; with METRICS_TOKEN set, only for `Authorization: Bearer <token>`. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Metrics } from './metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function metricsHandler(metrics: Metrics, token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : digest(token);
  const allowed = (req: Request) => {
    if (!expected) return true;
    const m = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '');
    // Equal-length digests: the comparison takes the same time whatever was sent.
    return !!m && timingSafeEqual(digest(m[1].trim()), expected);
  };
  return async (req, res) => {
    if (!allowed(req)) {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="metrics"').type('text/plain').send('metrics need Authorization: Bearer <METRICS_TOKEN>\n');
      return;
    }
    res
      .set('Cache-Control', 'no-store')
      .type(metrics.contentType)
      .send(await metrics.text());
  };
}

/** The route label of a finished request: the matched route pattern under its mount, never the raw URL (bounded label values). */
export function routeLabel(req: Request, basePath: string): string {
  const base = basePath && req.baseUrl.startsWith(basePath) ? req.baseUrl.slice(basePath.length) : req.baseUrl;
  const pattern = req.route?.path;
  if (typeof pattern === 'string') return `${base}${pattern}` || '/';
  return base ? `${base}/*` : 'unmatched';
}
