/** The POS display's server side: its API router and the static build. */
export { posApiRoutes } from './router';
export { posStatic, DEFAULT_POS_DIST } from './static';
