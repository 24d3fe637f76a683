import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The console is a static single-page application: `npm run build:console` writes it to
 * dist/console, which the gateway serves at `/` (deploy/gateway/routes.conf). JSX is compiled for
 * Preact by Vite's own transformer (no plugin needed); pages and the chart library are separate
 * chunks loaded on demand.
 */
const __dirname = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: __dirname,
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: resolve(__dirname, '../../dist/console'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    // `npx vite apps/console` during development: the API through the gateway of `npm start`
    proxy: Object.fromEntries(
      ['/core', '/authorization', '/api', '/orc', '/insights', '/docs'].map((prefix) => [
        prefix,
        `http://127.0.0.1:${process.env.GATEWAY_PORT ?? 8080}`,
      ]),
    ),
  },
});
