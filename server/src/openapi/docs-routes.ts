/**
 * `GET /openapi.json` (the document, built once) and `/docs/`: a readable reference of it, the
 * swagger-ui-dist package's files served from this service (no CDN, nothing fetched elsewhere).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { buildOpenApiDocument, type DocumentOptions } from './document';
import { REPO_ROOT } from '../repo-root';

const PAGE_DIR = path.join(REPO_ROOT, 'server/src/openapi/reference-page');
const UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The only files of the UI package the page needs. */
const UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);

/** `/openapi.json`, built once per language: `?lang=zh-CN` has the prose in Chinese, anything else English. */
export function openApiHandler(opts: DocumentOptions): RequestHandler {
  const bodies = new Map<string, string>();
  return (req, res) => {
    const lang = req.query.lang === 'zh-CN' ? 'zh-CN' : 'en';
    let body = bodies.get(lang);
    if (body === undefined) bodies.set(lang, (body = JSON.stringify(buildOpenApiDocument({ ...opts, lang }))));
    res.type('application/json').set('Cache-Control', 'no-cache').send(body);
  };
}

/**
 * `try-it.js`: the page's "Try it" (`reference-page/try-it.ts`) with the shared signing rules it
 * imports, bundled for the browser once per process. esbuild (which builds the compiled service
 * too) is loaded when first asked for, by a require the service's own bundle leaves alone.
 */
let tryIt: Promise<string> | undefined;
function tryItScript(): Promise<string> {
  tryIt ??= (async () => {
    const esbuild = createRequire(path.join(REPO_ROOT, 'package.json'))('esbuild') as typeof import('esbuild');
    const out = await esbuild.build({
      entryPoints: [path.join(PAGE_DIR, 'try-it.ts')],
      absWorkingDir: REPO_ROOT,
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      conditions: ['source'],
      minify: true,
      logLevel: 'silent',
    });
    return out.outputFiles[0].text;
  })();
  tryIt.catch(() => (tryIt = undefined));
  return tryIt;
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
  r.get('/try-it.js', (_req, res, next) => {
    tryItScript().then(
      (js) => res.type('text/javascript').set('Cache-Control', 'no-cache').send(js),
      // Without it the reference still renders, read-only (`init.js`).
      (e: unknown) => next(e),
    );
  });
  // The page's own files; its TypeScript source is served bundled, above, not as it is.
  r.use((req, _res, next) => (req.path.endsWith('.ts') ? next('router') : next()));
  r.use(express.static(PAGE_DIR, { index: false, maxAge: '1h' }));
  r.use((req, _res, next) => (UI_FILES.has(req.path.slice(1)) ? next() : next('router')));
  r.use(express.static(UI_DIR, { index: false, maxAge: '1d' }));
  return r;
}
