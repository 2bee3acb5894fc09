/**
 * The service's helpers a development plug-in may call (design 6.2): the small, protocol-free part
 * of the plug-in contract, beside the interface and types of `dev-plugin.ts`. A plug-in's pages
 * look like the service's (the page shell and its two languages), its routes are described in the
 * reference with the same body shapes and answer a wrong method as the service does (405 with
 * `Allow`), and its migrations and store speak both of the service's databases. No platform's
 * rule is here — signing, keys, formats and bills a plug-in writes itself (it referees the
 * service's), and the service's own modules stay out of its reach (`import-graph.test.ts`).
 */
export { catalogue, esc, js, pageLang, renderPage, sendPage, type Lang } from '../frontends/pages/page';
export { html, text, xml } from '../openapi/describe';
export { methodNotAllowed } from '../http/errors';
export { columnTypes } from '../db/dialect';
export { isUniqueViolation } from '../db/errors';
export { randomAlnum } from '../security/ids';
