/**
 * `GET /openapi.json` (the document, built once) and `/docs/`: a readable reference of it, the
 * swagger-ui-dist package's files served from this service (no CDN, nothing fetched elsewhere).
 */
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { buildOpenApiDocument, type DocumentOptions } from './document';
import { REPO_ROOT } from '../repo-root';

const PAGE_DIR = path.join(REPO_ROOT, 'server/src/openapi/reference-page');
const UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The only files of the UI package the page needs. */
const UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

export function openApiHandler(opts: DocumentOptions): RequestHandler {
  let body: string | undefined;
  return (_req, res) => {
    body ??= JSON.stringify(buildOpenApiDocument(opts));
    res.type('application/json').set('Cache-Control', 'no-cache').send(body);
  };
}

export function docsRoutes(): Router {
  const r = Router();
  const page: RequestHandler = (req, res) => {
    // `/docs` → `/docs/` so that the page's relative URLs resolve under it.
    if (!req.originalUrl.split('?', 1)[0].endsWith('/')) return res.redirect(301, `${req.originalUrl.split('?', 1)[0]}/`);
    res.set({
      'Content-Security-Policy':
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    res.sendFile(path.join(PAGE_DIR, 'index.html'));
  };
  r.get('/', page);
  r.use(express.static(PAGE_DIR, { index: false, maxAge: '1h' }));
  r.use((req, _res, next) => (UI_FILES.has(req.path.slice(1)) ? next() : next('router')));
  r.use(express.static(UI_DIR, { index: false, maxAge: '1d' }));
  return r;
}
