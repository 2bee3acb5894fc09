/**
 * `@kit/sandbox`: the payment platforms' stand-ins for development and tests (docs/sandbox.md),
 * the service's development plug-in (`sandboxPlugin`), never part of a production build.
 */
export { sandboxPlugin, sandboxOf, SANDBOX_PATH } from './plugin';
export type { Sandbox } from './sandbox';
export { SANDBOX_MIGRATIONS } from './migrations';
export type { SandboxDatabase, SandboxTables } from './sandbox-tables';
export { withResult } from './cashier-page';
export { envelope } from './v3/sandbox-v3-notices';
export { platformSignature } from './v3/sandbox-v3-http';
// The stand-ins' registry, with what they lend tests (a wallet's development keys).
export * from './stand-ins';
// The sandbox's own certificate maker, for tests that play a platform rotating its certificate.
export { platformCertificate } from './protocol/self-signed';
