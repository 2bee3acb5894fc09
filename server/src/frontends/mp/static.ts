/** The mini-program's H5 build (`miniprogram/dist/h5`) at /mp/; its router is hash based, so index.html is the only page. */
import path from 'node:path';
import type { Router } from 'express';
import { spaStatic } from '../spa-static';
import { REPO_ROOT } from '../../repo-root';

/** `miniprogram/dist/h5` of this checkout. */
export const DEFAULT_MP_H5_DIR = path.join(REPO_ROOT, 'miniprogram/dist/h5');

export function mpStatic(distDir: string): Router {
  return spaStatic({
    distDir,
    assetDirs: ['js', 'css', 'static'],
    // Taro's H5 page carries a small inline script (root font size) and inline styles.
    contentSecurityPolicy:
      "default-src 'self'; img-src 'self' data:; font-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    missingBuild: 'The mini-program H5 build is missing. Run `npm run build -w miniprogram`.',
  });
}
