/** The console's build (`console/dist`) at /console/. */
import path from 'node:path';
import type { Router } from 'express';
import { spaStatic } from '../spa-static';
import { REPO_ROOT } from '../../repo-root';

/** `console/dist` of this checkout. */
export const DEFAULT_CONSOLE_DIST = path.join(REPO_ROOT, 'console/dist');

export function consoleStatic(distDir: string): Router {
  return spaStatic({
    distDir,
    assetDirs: ['assets'],
    contentSecurityPolicy:
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    missingBuild: 'The console is not built. Run `npm run build` (or `npm start`, which builds first).',
  });
}
