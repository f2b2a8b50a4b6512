#!/usr/bin/env node
// `npm run package`: builds the desktop app with electron-builder for this machine's platform
// (electron-builder.yml). It needs the Electron runtime for that platform; where it is missing
// (these build machines install with ELECTRON_SKIP_BINARY_DOWNLOAD=1 and cannot download it) it
// says so and stops — nothing stands in for the runtime. Before packaging, the backend is staged
// and verified, so what goes into the archive is the tree verify-backend-bundle just ran.
//
// Usage: npm run package [-- --linux|--mac|--win]   (default: this platform)

import { spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The installed Electron runtime, read the way electron's index.js reads it but without requiring
 * it: the electron package we pin starts a download when required with its binary missing.
 */
function electronRuntime() {
  const dir = path.join(ROOT, 'node_modules', 'electron');
  try {
    const binary = path.join(dir, 'dist', readFileSync(path.join(dir, 'path.txt'), 'utf8').trim());
    if (existsSync(binary)) return { dist: path.join(dir, 'dist'), binary };
  } catch {
    // Not installed, or installed without its binary: explained below.
  }
  return undefined;
}

const runtime = electronRuntime();
if (!runtime) {
  console.error(
    [
      'Cannot package: the Electron runtime is not installed on this machine.',
      `  Expected it in ${path.join(ROOT, 'node_modules', 'electron', 'dist')} (electron's install step downloads it;`,
      '  it was skipped with ELECTRON_SKIP_BINARY_DOWNLOAD=1 or the download is not reachable from here).',
      'On a machine that can download it:',
      '  npm install                      # without ELECTRON_SKIP_BINARY_DOWNLOAD',
      '  npm run package                  # this platform; see README "Packaging" for macOS and Windows',
      'The staged backend can still be built and checked here: node scripts/bundle-backend.mjs && node scripts/verify-backend-bundle.mjs',
    ].join('\n'),
  );
  process.exit(1);
}

// The installer runs the shipped npm with Electron's binary as Node. Prove this Electron's Node
// runs the pinned npm before anything is packaged (npm's engines range is what would break).
const pinnedNpm = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')).dependencies.npm;
const npmOnElectron = spawnSync(runtime.binary, [path.join(ROOT, 'node_modules', 'npm', 'bin', 'npm-cli.js'), '--version'], {
  cwd: ROOT,
  env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  encoding: 'utf8',
});
if (npmOnElectron.status !== 0 || npmOnElectron.stdout.trim() !== pinnedNpm) {
  console.error(
    `Cannot package: the pinned npm ${pinnedNpm} does not run on this Electron's Node (exit ${npmOnElectron.status}): ${(npmOnElectron.stderr || npmOnElectron.stdout || String(npmOnElectron.error)).trim().split('\n').slice(-3).join(' | ')}`,
  );
  process.exit(1);
}

const node = process.execPath;
for (const script of ['scripts/bundle-backend.mjs', 'scripts/verify-backend-bundle.mjs']) {
  const run = spawnSync(node, [path.join(ROOT, script)], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

// The app directory electron-builder packs: the staged backend and a manifest without dependencies.
const app = path.join(ROOT, 'dist', 'app');
await rm(app, { recursive: true, force: true });
await mkdir(app, { recursive: true });
await cp(path.join(ROOT, 'dist', 'backend'), path.join(app, 'backend'), { recursive: true });
const root = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
await writeFile(
  path.join(app, 'package.json'),
  `${JSON.stringify(
    {
      name: root.name,
      productName: 'Sandbox Packs',
      version: root.version,
      description: root.description,
      license: root.license,
      author: 'Sandbox Packs contributors',
      type: 'module',
      main: 'backend/main.mjs',
    },
    null,
    2,
  )}\n`,
);

const platformArgs = process.argv.slice(2);
const builder = spawnSync(
  node,
  [
    path.join(ROOT, 'node_modules', 'electron-builder', 'cli.js'),
    '--config',
    path.join(ROOT, 'electron-builder.yml'),
    `--config.electronDist=${runtime.dist}`,
    ...(platformArgs.length ? platformArgs : []),
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
process.exit(builder.status ?? 1);
