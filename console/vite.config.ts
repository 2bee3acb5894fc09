import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** `@kit/shared` is compiled from its TypeScript source here, like the console's own. */
const sharedSrc = fileURLToPath(new URL('../shared/src/', import.meta.url));
/** The browser front ends' common parts (login, language, session, amounts), a plain folder compiled the same way. */
const webCommonSrc = fileURLToPath(new URL('../web-common/src/', import.meta.url));

/** Served by the kit service at /console/ (or <BASE_PATH>/console/); the page talks only to the relative `api/`. */
export default defineConfig({
  // Relative asset URLs: the same build works under any BASE_PATH.
  base: './',
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^@kit\/shared$/, replacement: `${sharedSrc}index.ts` },
      { find: /^@kit\/shared\//, replacement: sharedSrc },
      { find: /^@kit\/web-common\//, replacement: webCommonSrc },
    ],
    dedupe: ['react', 'react-dom'],
  },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2020', sourcemap: false },
  server: {
    // `npx vite` during development: the API comes from a running service (npm run server).
    proxy: { '/console/api': process.env.CONSOLE_DEV_API ?? 'http://127.0.0.1:8080' },
  },
});
