// Builds the browser fixture runner page into out/parity; the e2e parity suite and the browser
// bench serve it from a web host. Same rules as the renderer build (relative asset URLs, nothing
// inline under the strict CSP); workers are ES modules because the engine loads its Emscripten
// glue with a dynamic import.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: path.resolve(here, '../../../out/parity'),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
  },
  worker: { format: 'es' },
});
