#!/usr/bin/env node
// Builds what Electron cannot load from TypeScript itself: the preload, bundled to CommonJS
// (sandboxed preloads cannot be ES modules and may only require "electron"). The main process
// runs its TypeScript through tsx (electron/main/entry.mjs), like the CLI.
import { build } from 'esbuild';

await build({
  entryPoints: ['electron/preload/preload.ts'],
  outfile: 'out/electron/preload.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'chrome130',
  external: ['electron'],
  logLevel: 'warning',
});
console.log('preload built → out/electron/preload.cjs');
