/**
 * Jest for every package, as three groups (Jest projects) that `npm test` runs one after the other:
 *
 * - unit: next to the code (shared, the server's parts, the front ends' stores and components in
 *   jsdom, the mini-program's page logic, scripts) and the repository checks of test/docs, test/bench
 *   and test/repo. Starts no service: quick.
 * - api: every suite that starts the service: the HTTP suites and the front-end routers against
 *   started services (server/test), the operations scenarios that start it as a process (test/ops),
 *   and the docs recipes run against one (test/docs/live).
 * - browser: Debian Chromium through playwright-core (test/browser) and the end-to-end journeys
 *   (test/e2e); they use the builds of `npm run build`.
 *
 * `npm test` (scripts/test.ts) runs unit beside the checks and builds, then api and browser together
 * in parallel workers (docs/architecture.md, "Tests"): every suite takes its own ports (0), data
 * folders and PostgreSQL schema (server/test/support/backends.ts), and a suite that builds in place
 * does so in a copy of the checkout (test/ops/checkout-copy.ts).
 *
 * Browser-facing unit suites pick jsdom with a docblock. test/repo/test-groups.test.ts checks that
 * every test file belongs to exactly one group.
 */
const GROUPS = {
  unit: ['shared', 'server/src', 'sandbox/src', 'pos-display', 'console', 'web-common', 'miniprogram', 'scripts', 'test/docs', 'test/bench', 'test/repo'],
  api: ['server/test', 'test/ops', 'test/docs/live'],
  browser: ['test/browser', 'test/e2e'],
};
/** Folders inside a group's roots that belong to another group. */
const ELSEWHERE = { unit: ['<rootDir>/test/docs/live/'] };

const project = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts', '**/*.test.tsx'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.(t|j)sx?$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' } },
    ],
  },
  // Made once per run, shared by every worker: the development API v3 keys (server/test/support/dev-keys.ts).
  globalSetup: '<rootDir>/server/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/server/test/support/global-teardown.ts',
  moduleNameMapper: {
    '^@kit/shared$': '<rootDir>/shared/src/index.ts',
    '^@kit/shared/(.*)$': '<rootDir>/shared/src/$1',
    '^@kit/web-common/(.*)$': '<rootDir>/web-common/src/$1',
    '^@kit/server/(.*)$': '<rootDir>/server/src/$1',
    '^@kit/sandbox$': '<rootDir>/sandbox/src/index.ts',
  },
};

module.exports = {
  projects: Object.entries(GROUPS).map(([name, dirs]) => ({
    ...project,
    displayName: name,
    roots: dirs.map((d) => `<rootDir>/${d}`),
    testPathIgnorePatterns: [...project.testPathIgnorePatterns, ...(ELSEWHERE[name] ?? [])],
  })),
  // A hung test fails after this. Generous: the api and browser suites share two cores with each
  // other's workers, services, Chromium and PostgreSQL, and a test that spawns processes (`npm run
  // kit`, the compiled service) takes several times its quiet time when they all run at once.
  testTimeout: 90_000,
  testSequencer: '<rootDir>/test/sequencer.cjs',
};
