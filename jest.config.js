/**
 * Jest for every package, as three groups (Jest projects) that `npm test` runs one after the other:
 *
 * - unit: next to the code (shared, the server's parts and routers, the front ends' stores and
 *   components in jsdom, the mini-program's page logic, scripts) and the repository checks of
 *   test/docs, test/bench and test/repo. Quick; no Chromium.
 * - api: the server's HTTP suites against started services (server/test) and the operations
 *   scenarios that start the service as a process (test/ops).
 * - browser: Debian Chromium through playwright-core (test/browser) and the end-to-end journeys
 *   (test/e2e); they use the builds of `npm run build`.
 *
 * Browser-facing unit suites pick jsdom with a docblock. test/repo/test-groups.test.ts checks that
 * every test file belongs to exactly one group.
 */
const GROUPS = {
  unit: ['shared', 'server/src', 'pos-display', 'console', 'web-common', 'miniprogram', 'scripts', 'test/docs', 'test/bench', 'test/repo'],
  api: ['server/test', 'test/ops'],
  browser: ['test/browser', 'test/e2e'],
};

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
  moduleNameMapper: {
    '^@kit/shared$': '<rootDir>/shared/src/index.ts',
    '^@kit/shared/(.*)$': '<rootDir>/shared/src/$1',
    '^@kit/web-common/(.*)$': '<rootDir>/web-common/src/$1',
  },
};

module.exports = {
  projects: Object.entries(GROUPS).map(([name, dirs]) => ({ ...project, displayName: name, roots: dirs.map((d) => `<rootDir>/${d}`) })),
  testTimeout: 30000,
};
