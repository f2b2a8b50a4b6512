#!/usr/bin/env node
// `npm start`: builds and launches the Electron app where the Electron runtime is installed.
// Where it is not (ELECTRON_SKIP_BINARY_DOWNLOAD, or a machine that cannot download it), it says
// so in one sentence, points at the web host (the same renderer and service contract) and exits 1.
// It never requires 'electron' to find out: that package's index.js starts a download when the
// binary is missing, which fails here with a `fetch failed` stack.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The Electron binary the `electron` package installed, or null when it has none. */
function electronBinary(require = createRequire(import.meta.url)) {
  let dir;
  try {
    dir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
  const pathFile = path.join(dir, 'path.txt');
  const executable = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const dist = process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(dir, 'dist');
  if (!executable && !process.env.ELECTRON_OVERRIDE_DIST_PATH) return null;
  const binary = path.join(dist, executable || 'electron');
  return existsSync(binary) ? binary : null;
}

const NO_ELECTRON =
  "The Electron runtime is not installed (node_modules/electron has no binary), so the desktop window cannot open: run `npm run web` to use the same app in a browser, or `node node_modules/electron/install.js` to download Electron's binary.";

const binary = electronBinary();
if (!binary) {
  process.stderr.write(`${NO_ELECTRON}\n`);
  process.exit(1);
}
const { spawn } = await import('node:child_process');
// Build what the window loads (renderer, preload); the main process runs its TypeScript via tsx.
await import('./build-renderer.mjs');
await import('./build-electron.mjs');
const child = spawn(binary, ['electron/main/entry.mjs'], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 0));
