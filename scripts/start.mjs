#!/usr/bin/env node
// `npm start`: builds and launches the Electron app where the Electron runtime is installed.
// Where it is not (these build machines cannot download it), it says so and points at the web
// host, which serves the same renderer and the same service contract.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

const require = createRequire(import.meta.url);
let electronBinary = null;
try {
  const candidate = require('electron');
  if (typeof candidate === 'string' && existsSync(candidate)) electronBinary = candidate;
} catch {
  electronBinary = null;
}
if (!electronBinary) {
  console.log(
    [
      'The Electron runtime is not installed on this machine, so the desktop window cannot open.',
      'Run `npm run web` to use the same app in a browser, or `npx sandbox-packs --help` for the CLI.',
    ].join('\n'),
  );
  process.exit(0);
}
const { spawn } = await import('node:child_process');
// Build what the window loads (renderer, preload); the main process runs its TypeScript via tsx.
await import('./build-renderer.mjs');
await import('./build-electron.mjs');
const child = spawn(electronBinary, ['electron/main/entry.mjs'], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 0));
