/** One Jest run for every package; browser-facing suites pick jsdom with a docblock. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/shared', '<rootDir>/server', '<rootDir>/pos-display', '<rootDir>/miniprogram', '<rootDir>/test', '<rootDir>/scripts'],
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
  },
  testTimeout: 30000,
};
