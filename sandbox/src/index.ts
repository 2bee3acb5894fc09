/**
 * `@kit/sandbox`: the payment platforms' stand-ins for development and tests (docs/sandbox.md),
 * never part of a production build.
 */
export { createSandbox, type Sandbox } from './sandbox';
export { sandboxRoutes } from './sandbox-routes';
export { SANDBOX_MIGRATIONS } from './migrations';
export type { SandboxDatabase, SandboxTables } from './sandbox-tables';
export { withResult } from './cashier-page';
export { sandboxRoutes as sandboxRouteDocs } from './openapi/sandbox';
export { sandboxV3Routes as sandboxV3RouteDocs } from './openapi/sandbox-v3';
export { envelope } from './v3/sandbox-v3-notices';
export { platformSignature } from './v3/sandbox-v3-http';
