/** The payer mini-program's server side: its API router and the H5 build. */
export { mpApiRoutes } from './router';
export { mpStatic, DEFAULT_MP_H5_DIR } from './static';
