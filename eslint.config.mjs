// ESLint for every package: typescript-eslint's recommended rules, React's hooks rules for the two
// front ends, and nothing about layout (Prettier owns that; `npm run lint` runs both).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  {
    // A disable that no longer disables anything is an error: it would hide the next real problem on that line.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/.cache/**', 'coverage/**', 'data/**', 'test/browser/screenshots/**', 'miniprogram/.swc/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter or binding kept on purpose (a handler's signature, a destructured rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // A promise nobody awaits loses its failure: with money paths that is a lost write or a silent
    // stop. These two need type information (about 10 s for the whole repository).
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Express 5 hands a handler's rejected promise to the error middleware; React's event handlers here catch their own.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // The sandbox is a development plug-in (design 6.2): one file of the service loads it
    // (`server/src/plugins/load.ts`, checked with the rest of the import graph by `server/src/import-graph.test.ts`).
    files: ['server/src/**/*.ts'],
    ignores: ['server/src/plugins/load.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@kit/sandbox', '@kit/sandbox/*'], message: 'The service reaches the sandbox through its plug-in interface (server/src/plugins/).' },
          ],
        },
      ],
    },
  },
  {
    // One clock (design 7.1): the service and the sandbox read the time and wait through the `Clock` the
    // composition root gives them (shared/src/clock.ts), so that a test can move it. `performance.now()`
    // measures how long something took on this machine (a latency for a log or a metric).
    files: ['server/src/**/*.ts', 'sandbox/src/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      // Machine time by nature: the database's pool and health probe, the log, starting and stopping the
      // process, the service file, instances' hellos, the metrics' scrape cache, a migration's timestamps,
      // the API page's script (it runs in the browser), an EVM node's receipts, development keys' validity.
      'server/src/db/**',
      'server/src/logger.ts',
      'server/src/runtime.ts',
      'server/src/service.ts',
      'server/src/service-file.ts',
      'server/src/orders/pg-event-bridge.ts',
      'server/src/metrics/metrics.ts',
      'server/src/openapi/reference-page/**',
      'server/src/chain/anchor/anchor-evm.ts',
      'sandbox/src/v3/dev-credentials.ts',
      'sandbox/src/v3/sandbox-v3-keys.ts',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: "Read the service's clock (design 7.1): clock.now()." },
        { object: 'AbortSignal', property: 'timeout', message: "A time limit on the service's clock: clock.timeout(ms)." },
      ],
      'no-restricted-globals': ['error', { name: 'setInterval', message: "Wait on the service's clock (clock.setTimeout, clock.sleep, jobs/loop.ts)." }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='setTimeout']", message: "Wait on the service's clock (clock.setTimeout, clock.sleep)." },
      ],
    },
  },
  {
    // The sandbox reaches the service as a package (`@kit/server/<path>`), never by a path out of its own folder.
    files: ['sandbox/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/src/**', '../../*'], message: 'Import the service as @kit/server/<path>.' }] }],
    },
  },
  {
    files: ['pos-display/src/**/*.{ts,tsx}', 'console/src/**/*.{ts,tsx}', 'web-common/src/**/*.{ts,tsx}', 'miniprogram/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['**/*.test.{ts,tsx}', 'test/**/*.{ts,tsx}', 'server/test/**/*.ts', '**/test/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    // The one loosening left: the HTTP suites read raw JSON answers (`client.call<any>`, a tiny browser's `body`),
    // wrong shapes included on purpose, and assert their shape field by field; typing each answer would restate
    // the very schema under test. Everything else, unit tests and migrations included, writes its types.
    files: ['server/test/**/*.ts', 'server/src/frontends/*/*-router.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The API reference page's script runs in the browser next to the Swagger UI bundle.
    files: ['server/src/openapi/reference-page/*.js'],
    languageOptions: { globals: { ...globals.browser, SwaggerUIBundle: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
