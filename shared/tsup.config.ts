/**
 * Builds the package a merchant backend installs (`npm pack -w shared`): ESM (`.mjs`) and CommonJS
 * (`.js`) bundles with their type declarations, zod left as a dependency. Inside this repository
 * every consumer compiles `src/` directly (tsconfig paths, Jest's moduleNameMapper, the Vite and
 * Taro aliases, or Node's package resolution with the `source` condition of `package.json`'s
 * exports, which lists every subpath the server and the front ends import), so `dist/` is only
 * what leaves it: the package's root, what a merchant backend imports.
 */
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { types: ['node'] } },
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  splitting: false,
  silent: true,
});
