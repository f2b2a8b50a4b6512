// Builds the renderer for both faces: the Electron window loads it from file:// and the web host
// serves it, so asset URLs are relative (`base: './'`) and nothing is inlined that the strict CSP
// (script-src 'self', no inline code) would refuse. Run from the repo root (scripts/build-renderer.mjs).

import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../out/renderer',
    emptyOutDir: true,
    // No inline <script> for the modulepreload polyfill: the CSP forbids inline code.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    // One bundle (React, zod, acorn, the Markdown pipeline) loaded from disk or loopback.
    chunkSizeWarningLimit: 1024,
  },
  // The browser runner's workers (renderer/runner/) are ES modules: the engine loads its
  // Emscripten glue with a dynamic import, which a classic (iife) worker bundle cannot hold.
  worker: { format: 'es' },
});
