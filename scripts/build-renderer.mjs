#!/usr/bin/env node
// Builds the renderer (Vite) into out/renderer, where the Electron window and the web host load it.
import { build } from 'vite';

await build({ configFile: 'renderer/vite.config.ts', logLevel: 'warn' });
console.log('renderer built → out/renderer');
