/** The POS display's build (`pos-display/dist`) at /pos/. */
import path from 'node:path';
import type { Router } from 'express';
import { spaStatic } from '../spa-static';
import { REPO_ROOT } from '../../repo-root';

/** `pos-display/dist` of this checkout. */
export const DEFAULT_POS_DIST = path.join(REPO_ROOT, 'pos-display/dist');

export function posStatic(distDir: string): Router {
  return spaStatic({
    distDir,
    assetDirs: ['assets'],
    contentSecurityPolicy:
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    missingBuild: 'The POS display is not built. Run `npm run build` (or `npm start`, which builds first).',
  });
}
