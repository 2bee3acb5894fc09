import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** Served by the kit service at /pos/; the page talks only to /pos/api (relative `api/`). */
export default defineConfig({
  base: '/pos/',
  plugins: [react()],
  resolve: {
    // One React: this package's own (the workspace root holds another major version).
    dedupe: ['react', 'react-dom'],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
    sourcemap: false,
  },
  server: {
    // `npx vite` during development: the API comes from a running service (npm run server).
    proxy: { '/pos/api': process.env.POS_DEV_API ?? 'http://127.0.0.1:8080' },
  },
});
