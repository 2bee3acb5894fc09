/** The merchant console's server side: its API router and the static build. */
export { consoleApiRoutes } from './router';
export { consoleStatic, DEFAULT_CONSOLE_DIST } from './static';
