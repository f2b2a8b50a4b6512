// Builds the browser fixture runner page into out/parity (run from the repo root); the e2e parity
// suite and the browser bench serve it from a web host. Same rules as the renderer build (relative
// asset URLs, nothing inline under the strict CSP); workers are ES modules because the engine
// loads its Emscripten glue with a dynamic import.

import { defineConfig } from 'vite';

export default defineConfig({
  root: 'renderer/runner/parity',
  base: './',
  logLevel: 'warn',
  build: {
    outDir: '../../../out/parity',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
  },
  worker: { format: 'es' },
});
