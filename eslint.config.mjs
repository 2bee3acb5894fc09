// ESLint for every package: typescript-eslint's recommended rules, React's hooks rules for the two
// front ends, and nothing about layout (Prettier owns that; `npm run lint` runs both).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
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
    files: ['pos-display/src/**/*.{ts,tsx}', 'miniprogram/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Tests read raw JSON answers whose shape is what they assert, and build fakes of typed parts.
    files: ['**/*.test.{ts,tsx}', 'test/**/*.{ts,tsx}', 'server/test/**/*.ts', '**/test/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.jest } },
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // A migration works on the schema as it was then, not on today's typed one (Kysely's own advice).
    files: ['server/src/db/migrations/**/*.ts'],
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
