/**
 * Serves a built single-page front end (the POS display at /pos/, the mini-program's H5 build at
 * /mp/). Hashed assets are cached for good; index.html never is, so a new build reaches screens on
 * their next reload. No signature and no login here: the pages hold nothing secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type Response } from 'express';

export interface SpaOptions {
  distDir: string;
  /** Folders of content-hashed files, cached for a year. */
  assetDirs: string[];
  contentSecurityPolicy: string;
  /** Said with a 503 when the build is missing. */
  missingBuild: string;
}

export function spaStatic(opts: SpaOptions): Router {
  const r = Router();
  const index = path.join(opts.distDir, 'index.html');
  const pageHeaders = {
    'Content-Security-Policy': opts.contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-cache',
  };

  const sendIndex = (res: Response) => {
    if (!fs.existsSync(index)) {
      res.status(503).type('text/plain').send(opts.missingBuild);
      return;
    }
    res.set(pageHeaders);
    res.sendFile(index);
  };

  // `/pos` → `/pos/` (keeping the query; a hash never reaches the server) so that relative URLs resolve under the prefix.
  r.get('/', (req, res) => {
    const q = req.originalUrl.indexOf('?');
    const pathPart = q < 0 ? req.originalUrl : req.originalUrl.slice(0, q);
    if (!pathPart.endsWith('/')) return res.redirect(301, `${pathPart}/${q < 0 ? '' : req.originalUrl.slice(q)}`);
    sendIndex(res);
  });
  r.get('/index.html', (_req, res) => sendIndex(res));
  for (const dir of opts.assetDirs) {
    r.use(
      `/${dir}`,
      express.static(path.join(opts.distDir, dir), {
        index: false,
        fallthrough: true,
        immutable: true,
        maxAge: '365d',
        setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
      }),
    );
  }
  // Other files of the build (favicon and the like).
  r.use(express.static(opts.distDir, { index: false, fallthrough: true, maxAge: '1h' }));
  return r;
}
